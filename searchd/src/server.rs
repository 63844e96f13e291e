//! Starting the gRPC and HTTP servers on already-bound listeners.

use std::net::SocketAddr;
use std::sync::Arc;

use dentate_proto::v1::dentate_server::DentateServer;
use tokio::net::TcpListener;

use crate::auth::KeyStore;
use crate::engine::Engine;
use crate::grpc::DentateService;
use crate::limits::{Admission, Limits};
use crate::profiles::Profiles;

/// Addresses the daemon listens on.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    pub grpc: SocketAddr,
    pub http: SocketAddr,
}

/// Who may use the daemon: API keys and the browser policy (`crate::http::host_check`).
#[derive(Default, Clone)]
pub struct Access {
    /// `--keys FILE`: every route but health needs a key once given.
    pub keys: Option<Arc<KeyStore>>,
    /// `--allow-host`: names besides localhost and the bound address.
    pub allow_hosts: Vec<String>,
    /// `--cors-origin`: origins whose pages may read replies.
    pub cors_origins: Vec<String>,
}

/// The HTTP app of one engine, every route behind the limits (what the fuzz target
/// drives in process).
pub fn http_app(engine: Arc<Engine>, admission: Arc<Admission>) -> axum::Router {
    crate::limits::http::layer(crate::http::router(engine), admission)
}

/// Binds both listeners (port 0 picks a free port) and serves `profiles` until
/// `shutdown` resolves, under `limits` (one set of per-class gates shared by both
/// transports and every profile). Calls `ready` with the bound addresses once both
/// accept connections.
///
/// HTTP layers, outermost first: the browser policy (`Host`, CORS), the limits, then
/// the page (no key) and each profile's routes behind its key gate.
pub async fn serve(
    profiles: Profiles,
    access: Access,
    limits: Limits,
    grpc_addr: SocketAddr,
    http_addr: SocketAddr,
    ready: impl FnOnce(Bound),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let grpc_listener = TcpListener::bind(grpc_addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen for gRPC on {grpc_addr}: {e}"))?;
    let http_listener = TcpListener::bind(http_addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen for HTTP on {http_addr}: {e}"))?;
    let bound = Bound {
        grpc: grpc_listener.local_addr()?,
        http: http_listener.local_addr()?,
    };

    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<DentateServer<DentateService>>()
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(dentate_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    let (stop_tx, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut grpc_stop = stop_tx.subscribe();
    let mut http_stop = stop_tx.subscribe();
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(());
    });

    let admission = Admission::new(limits.clone());
    let grpc = tonic::transport::Server::builder()
        .http2_keepalive_interval(Some(limits.client_timeout))
        .http2_keepalive_timeout(Some(limits.client_timeout))
        .layer(crate::limits::grpc::GrpcLimitsLayer(admission.clone()))
        .add_service(health_service)
        .add_service(reflection)
        .add_service(crate::grpc::profiles::ProfileRouter::new(
            &profiles,
            access.keys.clone(),
            limits.max_body_bytes,
        ))
        .serve_with_incoming_shutdown(
            crate::limits::conn::Acceptor::new(grpc_listener, &limits).into_stream(),
            async move {
                let _ = grpc_stop.recv().await;
            },
        );
    if let Some(keys) = &access.keys {
        crate::auth::watch_sighup(keys.clone())?;
    }
    let policy = crate::http::host_check::BrowserPolicy::new(
        bound.http,
        &access.allow_hosts,
        &access.cors_origins,
    );
    // The page (`/`, `/ui/…`) needs no key; the API routes behind it do.
    let routes = crate::http::page::with_page(crate::profiles::http_router(
        &profiles,
        access.keys.clone(),
        &crate::http::hippocamp::OutputDir::default(),
    ));
    let app =
        crate::limits::http::layer(routes, admission).layer(axum::middleware::from_fn_with_state(
            Arc::new(policy),
            crate::http::host_check::browser_guard,
        ));
    let http = crate::limits::http::serve(http_listener, app, &limits, async move {
        let _ = http_stop.recv().await;
    });
    ready(bound);
    let (grpc_result, http_result) = tokio::join!(grpc, http);
    grpc_result?;
    http_result?;
    Ok(())
}
