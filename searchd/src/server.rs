//! Starting the gRPC and HTTP servers on already-bound listeners.

use std::net::SocketAddr;
use std::sync::Arc;

use dentate_proto::v1::dentate_server::DentateServer;
use tokio::net::TcpListener;

use crate::engine::Engine;
use crate::grpc::DentateService;
use crate::limits::{Admission, Limits};

/// Addresses the daemon listens on.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    pub grpc: SocketAddr,
    pub http: SocketAddr,
}

/// The HTTP app the daemon serves: every route behind the limits.
pub fn http_app(engine: Arc<Engine>, admission: Arc<Admission>) -> axum::Router {
    crate::limits::http::layer(crate::http::router(engine), admission)
}

/// Binds both listeners (port 0 picks a free port) and serves until `shutdown`
/// resolves, under `limits` (one set of per-class gates shared by both). Calls `ready`
/// with the bound addresses once both accept connections.
pub async fn serve(
    engine: Arc<Engine>,
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
        .add_service(
            DentateServer::new(DentateService::new(engine.clone()))
                .max_decoding_message_size(limits.max_body_bytes),
        )
        .serve_with_incoming_shutdown(
            crate::limits::conn::Acceptor::new(grpc_listener, &limits).into_stream(),
            async move {
                let _ = grpc_stop.recv().await;
            },
        );
    let http = crate::limits::http::serve(
        http_listener,
        http_app(engine, admission),
        &limits,
        async move {
            let _ = http_stop.recv().await;
        },
    );
    ready(bound);
    let (grpc_result, http_result) = tokio::join!(grpc, http);
    grpc_result?;
    http_result?;
    Ok(())
}
