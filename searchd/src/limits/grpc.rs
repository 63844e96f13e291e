//! The limits over gRPC: a tower layer in front of the `dentate.v1.Dentate` service
//! (message size and arrival time, field checks, the class's gate, the deadline — the
//! shorter of `--request-timeout` and the client's `grpc-timeout`). Health and
//! reflection pass through untouched (reflection streams its requests).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http;
use tonic::body::Body;
use tonic::Status;

use super::{fields, Admission, Deadline, Rejection, RETRY_AFTER_SECONDS};

/// The gRPC status of a refusal.
pub fn status(rejection: &Rejection) -> Status {
    let message = rejection.message().to_string();
    let mut status = match rejection {
        Rejection::Invalid(_) | Rejection::UriTooLong(_) => Status::invalid_argument(message),
        Rejection::TooLarge(_) | Rejection::Busy(_) => Status::resource_exhausted(message),
        Rejection::QueueTimeout(_) => Status::unavailable(message),
        Rejection::SlowClient(_) | Rejection::Deadline(_) => Status::deadline_exceeded(message),
        Rejection::Failed(_) => Status::internal(message),
    };
    if matches!(rejection, Rejection::Busy(_) | Rejection::QueueTimeout(_)) {
        // gRPC's retry throttling hint.
        if let Ok(value) = (RETRY_AFTER_SECONDS * 1000).to_string().parse() {
            status
                .metadata_mut()
                .insert("grpc-retry-pushback-ms", value);
        }
    }
    status
}

/// A `grpc-timeout` header value (`100m`, `5S`, …) as a duration.
pub fn grpc_timeout(value: &str) -> Option<Duration> {
    let value = value.trim();
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount.checked_mul(3600)?),
        "M" => Duration::from_secs(amount.checked_mul(60)?),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

/// The layer (for `tonic::transport::Server::builder().layer(…)`).
#[derive(Clone)]
pub struct GrpcLimitsLayer(pub Arc<Admission>);

impl<S> tower::Layer<S> for GrpcLimitsLayer {
    type Service = GrpcLimits<S>;

    fn layer(&self, inner: S) -> GrpcLimits<S> {
        GrpcLimits {
            inner,
            admission: self.0.clone(),
        }
    }
}

/// The service the layer wraps around tonic's routes.
#[derive(Clone)]
pub struct GrpcLimits<S> {
    inner: S,
    admission: Arc<Admission>,
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl<S> tower::Service<http::Request<Body>> for GrpcLimits<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<http::Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        // The ready service handles this call; a fresh clone waits for the next.
        let fresh = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, fresh);
        if !request.uri().path().starts_with("/dentate.v1.Dentate/") {
            return Box::pin(inner.call(request));
        }
        let admission = self.admission.clone();
        Box::pin(async move {
            let refuse = |rejection: Rejection| Ok(status(&rejection).into_http());
            let limits = admission.limits();
            let allowed = request
                .headers()
                .get("grpc-timeout")
                .and_then(|v| v.to_str().ok())
                .and_then(grpc_timeout)
                .map_or(limits.request_timeout, |t| t.min(limits.request_timeout));
            let deadline = Deadline::from_now(allowed);
            let (parts, body) = request.into_parts();
            let body = axum::body::Body::new(body);
            // The frame header (5 bytes) on top of the message.
            let bytes = match super::http::read_body(
                body,
                limits.max_body_bytes + 5,
                limits.client_timeout,
            )
            .await
            {
                Ok(bytes) => bytes,
                Err(rejection) => return refuse(rejection),
            };
            let class = match fields::grpc_class(parts.uri.path(), &bytes, limits) {
                Ok(class) => class,
                Err(rejection) => return refuse(rejection),
            };
            let permit = match admission.enter(class, deadline).await {
                Ok(permit) => permit,
                Err(rejection) => return refuse(rejection),
            };
            let request =
                http::Request::from_parts(parts, Body::new(axum::body::Body::from(bytes)));
            match admission.run(permit, deadline, inner.call(request)).await {
                Ok(result) => result,
                Err(rejection) => refuse(rejection),
            }
        })
    }
}
