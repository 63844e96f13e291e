//! The limits over HTTP: a middleware in front of every route (target length, body size
//! and arrival time, field checks, the class's gate, the deadline) and the accept loop
//! (connection bound, header-read timeout, stalled clients).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use futures_util::StreamExt;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use serde_json::{json, Value};

use super::conn::Acceptor;
use super::{fields, Admission, Deadline, Limits, Rejection, RETRY_AFTER_SECONDS};

/// The app with the limits in front of every route.
pub fn layer(router: Router, admission: Arc<Admission>) -> Router {
    router.layer(axum::middleware::from_fn_with_state(admission, guard))
}

/// The reply to a refused request: its status, `{"error": …, "success": false}` (the
/// second key for HippoCamp's clients) and `Retry-After` when retrying helps.
pub fn reply(rejection: &Rejection) -> Response {
    let status = match rejection {
        Rejection::Invalid(_) => StatusCode::BAD_REQUEST,
        Rejection::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        Rejection::UriTooLong(_) => StatusCode::URI_TOO_LONG,
        Rejection::SlowClient(_) => StatusCode::REQUEST_TIMEOUT,
        Rejection::Busy(_) | Rejection::QueueTimeout(_) => StatusCode::SERVICE_UNAVAILABLE,
        Rejection::Deadline(_) => StatusCode::GATEWAY_TIMEOUT,
        Rejection::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let mut response = (
        status,
        Json(json!({ "error": rejection.message(), "success": false })),
    )
        .into_response();
    if matches!(rejection, Rejection::Busy(_) | Rejection::QueueTimeout(_)) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    if matches!(rejection, Rejection::SlowClient(_)) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// How much of an oversized body is read (and dropped) before the 413, as a multiple
/// of the limit.
const DRAIN_FACTOR: usize = 8;

/// Reads a body of at most `max` bytes within `timeout`.
pub(super) async fn read_body(
    body: Body,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Rejection> {
    let too_large = || Rejection::TooLarge(format!("the request body is larger than {max} bytes"));
    let read = async {
        let mut stream = body.into_data_stream();
        let mut collected: Vec<u8> = Vec::new();
        let mut seen = 0usize;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk
                .map_err(|e| Rejection::Invalid(format!("cannot read the request body: {e}")))?;
            seen += chunk.len();
            if seen > max {
                // Read on (dropping it) up to a bound, so a client that writes its whole
                // body before reading gets the 413 rather than a reset connection.
                if seen > max.saturating_mul(DRAIN_FACTOR) {
                    return Err(too_large());
                }
                collected.clear();
                continue;
            }
            collected.extend_from_slice(&chunk);
        }
        if seen > max {
            return Err(too_large());
        }
        Ok(Bytes::from(collected))
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(result) => result,
        Err(_) => Err(Rejection::SlowClient(format!(
            "the request body did not arrive within {:.1} s",
            timeout.as_secs_f64()
        ))),
    }
}

async fn guard(State(admission): State<Arc<Admission>>, request: Request, next: Next) -> Response {
    match admit(&admission, request, next).await {
        Ok(response) => response,
        Err(rejection) => reply(&rejection),
    }
}

async fn admit(admission: &Admission, request: Request, next: Next) -> Result<Response, Rejection> {
    let limits = admission.limits();
    let deadline = Deadline::from_now(limits.request_timeout);
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > limits.max_uri_bytes {
        return Err(Rejection::UriTooLong(format!(
            "the request target has {target} bytes, more than {}",
            limits.max_uri_bytes
        )));
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    // Declared far too large: refused before reading (the client may see a reset).
    if declared.is_some_and(|n| n > limits.max_body_bytes.saturating_mul(DRAIN_FACTOR) as u64) {
        return Err(Rejection::TooLarge(format!(
            "the request body is larger than {} bytes",
            limits.max_body_bytes
        )));
    }
    let (parts, body) = request.into_parts();
    let bytes = read_body(body, limits.max_body_bytes, limits.client_timeout).await?;
    let json: Option<Value> = if bytes.is_empty() {
        None
    } else {
        // Bodies that are not JSON are the routes' to judge (they answer 400).
        serde_json::from_slice(&bytes).ok()
    };
    if let Some(json) = &json {
        fields::check_json(json, limits)?;
    }
    let class = fields::http_class(parts.uri.path(), json.as_ref());
    let permit = admission.enter(class, deadline).await?;
    let request = Request::from_parts(parts, Body::from(bytes));
    admission.run(permit, deadline, next.run(request)).await
}

/// Serves `app` on `listener` until `shutdown` resolves: at most `max_connections`
/// connections, request headers within `client_timeout` (idle keep-alive connections
/// included), stalled clients dropped. Open connections are given 5 s to finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let acceptor = Acceptor::new(listener, limits);
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.client_timeout)
        .max_buf_size((limits.max_uri_bytes + 64 * 1024).max(8192));
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.client_timeout))
        .keep_alive_timeout(limits.client_timeout);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let connection = tokio::select! {
            connection = acceptor.accept() => connection,
            () = &mut shutdown => break,
        };
        let service = TowerToHyperService::new(app.clone());
        let served = builder
            .serve_connection(TokioIo::new(connection), service)
            .into_owned();
        let watched = graceful.watch(served);
        tokio::spawn(async move {
            if let Err(error) = watched.await {
                tracing::debug!("HTTP connection ended: {error}");
            }
        });
    }
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(5)) => {}
    }
    Ok(())
}
