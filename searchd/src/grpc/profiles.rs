//! Profiles and API keys over gRPC: one `dentate.v1.Dentate` server per profile behind a
//! router that reads two metadata entries of each call:
//!
//! - `x-dentate-profile: NAME` picks the profile (none: the first); an unknown name is
//!   NOT_FOUND.
//! - `authorization: Bearer KEY`, once a key file is given: none or an unknown key is
//!   UNAUTHENTICATED, a key without the profile PERMISSION_DENIED.
//!
//! The router works on whole HTTP/2 requests, so it covers every RPC of the service
//! (present and future) without translating any of them. The health and reflection
//! services stay open.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use dentate_proto::v1::dentate_server::DentateServer;
use tonic::body::Body;
use tonic::codegen::http::{HeaderMap, Request, Response};
use tonic::codegen::{BoxFuture, Service};
use tonic::server::NamedService;
use tonic::Status;

use crate::auth::{Denied, KeyStore};
use crate::grpc::DentateService;
use crate::profiles::{Profiles, PROFILE_METADATA};

type Server = DentateServer<DentateService>;

/// The `dentate.v1.Dentate` service of every profile.
#[derive(Clone)]
pub struct ProfileRouter {
    servers: Arc<Vec<(String, Server)>>,
    keys: Option<Arc<KeyStore>>,
}

impl ProfileRouter {
    /// Each profile's server decodes messages of at most `max_message_bytes`.
    pub fn new(
        profiles: &Profiles,
        keys: Option<Arc<KeyStore>>,
        max_message_bytes: usize,
    ) -> ProfileRouter {
        let servers = profiles
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    DentateServer::new(DentateService::new(p.engine.clone()))
                        .max_decoding_message_size(max_message_bytes),
                )
            })
            .collect();
        ProfileRouter {
            servers: Arc::new(servers),
            keys,
        }
    }

    /// The server of the call's profile, if its key opens it.
    fn select(&self, headers: &HeaderMap) -> Result<Server, Status> {
        let name = match headers.get(PROFILE_METADATA) {
            None => self.servers[0].0.as_str(),
            Some(value) => value.to_str().map_err(|_| {
                Status::invalid_argument(format!("{PROFILE_METADATA} is not a profile name"))
            })?,
        };
        if let Some(keys) = &self.keys {
            let authorization = headers.get("authorization").map(|v| v.as_bytes());
            keys.authorize(authorization, name)
                .map_err(|denied| match denied {
                    Denied::Unauthenticated(m) => Status::unauthenticated(m),
                    Denied::Forbidden(m) => Status::permission_denied(m),
                })?;
        }
        self.servers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, server)| server.clone())
            .ok_or_else(|| {
                let names: Vec<&str> = self.servers.iter().map(|(n, _)| n.as_str()).collect();
                Status::not_found(format!(
                    "no profile {name:?}; this daemon serves {}",
                    names.join(", ")
                ))
            })
    }
}

impl NamedService for ProfileRouter {
    const NAME: &'static str = <Server as NamedService>::NAME;
}

impl Service<Request<Body>> for ProfileRouter {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        match self.select(request.headers()) {
            Ok(mut server) => Box::pin(async move {
                std::future::poll_fn(|cx| Service::<Request<Body>>::poll_ready(&mut server, cx))
                    .await?;
                server.call(request).await
            }),
            Err(status) => {
                let response = status.into_http();
                Box::pin(async move { Ok(response) })
            }
        }
    }
}
