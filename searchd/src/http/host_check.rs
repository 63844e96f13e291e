//! What a web browser may do with the HTTP gateway: DNS-rebinding protection (the `Host`
//! header) and a strict CORS policy (the `Origin` header). Applied to every HTTP route,
//! before the API-key check.
//!
//! **Host.** A page on `evil.example` whose name is rebound to 127.0.0.1 reaches the
//! daemon with `Host: evil.example:8080`. So a request is answered only when its `Host`
//! names this daemon: `localhost`, a loopback IP literal, the IP it is bound to (any IP
//! literal when bound to `0.0.0.0`/`[::]`, since an IP literal cannot be rebound), or a
//! name given with `--allow-host NAME` (`--allow-host '*'` switches the check off, e.g.
//! behind a reverse proxy that checks it). The port is not compared: the name is what a
//! rebinding attack controls, and port mappings (containers, proxies) change the port.
//! Anything else is refused with 421 Misdirected Request.
//!
//! **CORS.** No `Access-Control-Allow-Origin` is ever sent unless `--cors-origin ORIGIN`
//! names the page's origin exactly (then that origin, with `Vary: Origin`, and
//! preflights for `GET`/`POST` with `Authorization` and `Content-Type`). A request
//! whose `Origin` is neither such an origin nor the daemon's own (`http(s)://` + its
//! `Host`) is refused with 403, so a foreign page cannot even trigger work blindly.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_MAX_AGE, HOST, ORIGIN, VARY,
};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// The browser-facing policy of one HTTP listener.
#[derive(Debug, Clone)]
pub struct BrowserPolicy {
    bound: IpAddr,
    /// Lower-case host names besides `localhost` (no port).
    names: Vec<String>,
    any_host: bool,
    /// Exact origins (`scheme://host[:port]`, lower case, no trailing `/`).
    cors_origins: Vec<String>,
}

impl BrowserPolicy {
    /// `allow_hosts`: `--allow-host` values (names, optionally with a port, which is
    /// ignored; `*` allows any); `cors_origins`: `--cors-origin` values.
    pub fn new(
        bound: SocketAddr,
        allow_hosts: &[String],
        cors_origins: &[String],
    ) -> BrowserPolicy {
        BrowserPolicy {
            bound: bound.ip(),
            names: allow_hosts
                .iter()
                .filter(|h| h.as_str() != "*")
                .map(|h| host_name(h).to_string())
                .collect(),
            any_host: allow_hosts.iter().any(|h| h == "*"),
            cors_origins: cors_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        }
    }

    /// Whether a `Host` value names this daemon.
    pub fn host_allowed(&self, host: &str) -> bool {
        if self.any_host {
            return true;
        }
        let name = host_name(host);
        if name == "localhost" || self.names.contains(&name) {
            return true;
        }
        match name.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == self.bound || self.bound.is_unspecified(),
            Err(_) => false,
        }
    }

    fn cors_allowed(&self, origin: &str) -> bool {
        self.cors_origins.iter().any(|o| o == origin)
    }
}

/// The lower-case host name of a `Host` value: without the port, brackets of an IPv6
/// literal or a final dot.
fn host_name(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => host,
        }
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

fn refuse(status: StatusCode, message: String) -> Response {
    (status, Json(json!({ "error": message, "success": false }))).into_response()
}

/// The middleware: `Host`, then `Origin` and CORS.
pub async fn browser_guard(
    State(policy): State<Arc<BrowserPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let Some(host) = host.filter(|h| policy.host_allowed(h)) else {
        let shown = match request.headers().get(HOST) {
            Some(value) => format!("Host {:?} is", String::from_utf8_lossy(value.as_bytes())),
            None => "a request without a Host header is".to_string(),
        };
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "{shown} not for this daemon (DNS rebinding protection); \
                 use localhost or its IP address, or start it with --allow-host NAME"
            ),
        );
    };
    let Some(origin) = request.headers().get(ORIGIN).cloned() else {
        return next.run(request).await;
    };
    let origin_text = origin
        .to_str()
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_ascii_lowercase();
    if policy.cors_allowed(&origin_text) {
        let preflight = request.method() == Method::OPTIONS;
        let mut response = if preflight {
            let mut response = StatusCode::NO_CONTENT.into_response();
            let headers = response.headers_mut();
            headers.insert(
                ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, POST"),
            );
            headers.insert(
                ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("authorization, content-type"),
            );
            headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
            response
        } else {
            next.run(request).await
        };
        response
            .headers_mut()
            .insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        response
            .headers_mut()
            .append(VARY, HeaderValue::from_static("origin"));
        return response;
    }
    let host = host.to_ascii_lowercase();
    let same_origin = [format!("http://{host}"), format!("https://{host}")].contains(&origin_text);
    if same_origin {
        return next.run(request).await;
    }
    refuse(
        StatusCode::FORBIDDEN,
        format!(
            "cross-origin request from {:?} refused; allow that page with --cors-origin ORIGIN",
            String::from_utf8_lossy(origin.as_bytes())
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(bound: &str, hosts: &[&str]) -> BrowserPolicy {
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        BrowserPolicy::new(bound.parse().unwrap(), &hosts, &[])
    }

    #[test]
    fn only_names_of_this_daemon_pass() {
        let local = policy("127.0.0.1:8080", &["search.home.arpa"]);
        for good in [
            "localhost:8080",
            "LOCALHOST",
            "localhost.:8080",
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "search.home.arpa:9000",
            "Search.Home.Arpa",
        ] {
            assert!(local.host_allowed(good), "{good}");
        }
        for bad in [
            "evil.example:8080",
            "localhost.evil.example",
            "192.168.1.5:8080",
            "",
            "[::2]:8080",
            "127.0.0.1.nip.io:8080",
        ] {
            assert!(!local.host_allowed(bad), "{bad}");
        }
        let lan = policy("0.0.0.0:8080", &[]);
        assert!(lan.host_allowed("192.168.1.5:8080") && lan.host_allowed("[fe80::1]:8080"));
        assert!(!lan.host_allowed("evil.example:8080"));
        let fixed = policy("192.168.1.5:8080", &[]);
        assert!(fixed.host_allowed("192.168.1.5:8080") && !fixed.host_allowed("10.0.0.1"));
        assert!(policy("127.0.0.1:1", &["*"]).host_allowed("anything.example"));
    }
}
