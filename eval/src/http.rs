//! A small blocking HTTP client (over `ureq`) for the daemon's JSON gateway, shared by
//! `dentate-eval` and the end-to-end tests.
//!
//! Every status comes back as a reply (a 404 or 500 is an answer to check, not a failed
//! request), redirects are not followed, bodies are read whole, and each request has a
//! connection of its own, as the daemon's tests and the latency figures assume. Plain
//! `http://` only (no TLS).

use std::borrow::Cow;
use std::time::Duration;

use serde_json::Value;
use ureq::http::{header::CONTENT_TYPE, Request};

use crate::Error;

/// A reply: the status code and the raw body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    pub body: Vec<u8>,
}

impl HttpReply {
    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }

    /// The body parsed as JSON.
    pub fn json(&self) -> Result<Value, Error> {
        serde_json::from_str(&self.text()).map_err(Error::ReplyNotJson)
    }
}

/// The client; cheap to share between threads.
#[derive(Debug, Clone)]
pub struct HttpClient {
    agent: ureq::Agent,
    /// Sent as `Authorization: Bearer KEY` with every request.
    api_key: Option<String>,
}

impl HttpClient {
    /// `connect_timeout` bounds opening the connection, `read_timeout` each read of the
    /// reply (`None`: wait as long as it takes).
    pub fn new(connect_timeout: Option<Duration>, read_timeout: Option<Duration>) -> HttpClient {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .timeout_connect(connect_timeout)
            .timeout_per_read(read_timeout)
            .build()
            .into();
        HttpClient {
            agent,
            api_key: None,
        }
    }

    /// Sends `Authorization: Bearer KEY` with every request (a daemon with `--keys`).
    pub fn with_api_key(mut self, key: Option<String>) -> HttpClient {
        self.api_key = key.filter(|k| !k.is_empty());
        self
    }

    /// `GET url`.
    pub fn get(&self, url: &str) -> Result<HttpReply, Error> {
        self.request("GET", url, None)
    }

    /// `POST url` with a JSON body.
    pub fn post_json(&self, url: &str, body: &str) -> Result<HttpReply, Error> {
        self.request("POST", url, Some(body.as_bytes()))
    }

    /// Any method; a body is sent as `application/json`. The URL's path and query go
    /// out as written (no dot-segment removal, no re-encoding).
    pub fn request(
        &self,
        method: &str,
        url: &str,
        body: Option<&[u8]>,
    ) -> Result<HttpReply, Error> {
        self.request_with_headers(method, url, body, &[])
    }

    /// [`HttpClient::request`] with extra headers (they replace the client's own,
    /// `Host` and `Authorization` included).
    pub fn request_with_headers(
        &self,
        method: &str,
        url: &str,
        body: Option<&[u8]>,
        headers: &[(&str, &str)],
    ) -> Result<HttpReply, Error> {
        let failed = |source: ureq::Error| Error::Http {
            method: method.to_string(),
            url: url.to_string(),
            source,
        };
        let mut request = Request::builder().method(method).uri(url);
        if let Some(key) = &self.api_key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        if let Some(map) = request.headers_mut() {
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    ureq::http::HeaderName::from_bytes(name.as_bytes()),
                    ureq::http::HeaderValue::from_str(value),
                ) {
                    map.insert(name, value);
                }
            }
        }
        let response = match body {
            Some(body) => {
                let request = request
                    .header(CONTENT_TYPE, "application/json")
                    .body(body)
                    .map_err(|e| failed(e.into()))?;
                self.agent.run(request)
            }
            None => {
                let request = request.body(()).map_err(|e| failed(e.into()))?;
                self.agent.run(request)
            }
        };
        let mut response = response.map_err(failed)?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(u64::MAX)
            .read_to_vec()
            .map_err(failed)?;
        Ok(HttpReply { status, body })
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{SocketAddr, TcpListener};
    use std::thread::JoinHandle;

    use super::*;

    /// What the server received: the request's head lines and its body.
    type Received = (Vec<String>, Vec<u8>);

    /// A one-connection server: answers `status` with `body` and returns the request
    /// it received.
    fn serve_once(status: &str, body: Vec<u8>) -> (SocketAddr, JoinHandle<Received>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let status = status.to_string();
        let handle = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut head = Vec::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end().to_string();
                if line.is_empty() {
                    break;
                }
                head.push(line);
            }
            let length = head
                .iter()
                .find_map(|h| {
                    h.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|n| n.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            let mut request_body = vec![0; length];
            reader.read_exact(&mut request_body).unwrap();
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nLocation: /elsewhere\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .unwrap();
            stream.write_all(&body).unwrap();
            (head, request_body)
        });
        (addr, handle)
    }

    fn client() -> HttpClient {
        HttpClient::new(Some(Duration::from_secs(5)), Some(Duration::from_secs(30)))
    }

    #[test]
    fn posts_json_and_reads_the_reply() {
        let (addr, server) = serve_once("200 OK", br#"{"files": []}"#.to_vec());
        let reply = client()
            .post_json(&format!("http://{addr}/api/search"), r#"{"query": "q"}"#)
            .unwrap();
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json().unwrap(), serde_json::json!({"files": []}));
        let (head, body) = server.join().unwrap();
        assert_eq!(head[0], "POST /api/search HTTP/1.1");
        assert!(
            head.iter()
                .any(|h| h.eq_ignore_ascii_case("content-type: application/json")),
            "{head:?}"
        );
        assert_eq!(body, br#"{"query": "q"}"#);
    }

    #[test]
    fn paths_go_out_as_written() {
        for path in [
            "/api/return_ori/../../../../etc/passwd",
            "/api/return_ori/%2e%2e/%2e%2e/etc/passwd",
            "/api/return_ori//etc/passwd",
            "/api/list_files?pattern=**/*.pdf",
        ] {
            let (addr, server) = serve_once("200 OK", b"ok".to_vec());
            let reply = client().get(&format!("http://{addr}{path}")).unwrap();
            assert_eq!((reply.status, reply.text().as_ref()), (200, "ok"));
            let (head, _) = server.join().unwrap();
            assert_eq!(head[0], format!("GET {path} HTTP/1.1"));
        }
    }

    #[test]
    fn error_statuses_and_redirects_are_replies() {
        let (addr, server) = serve_once("404 Not Found", b"no such route".to_vec());
        let reply = client().get(&format!("http://{addr}/nope")).unwrap();
        assert_eq!(
            (reply.status, reply.text().as_ref()),
            (404, "no such route")
        );
        assert!(matches!(reply.json(), Err(Error::ReplyNotJson(_))));
        server.join().unwrap();

        let (addr, server) = serve_once("302 Found", Vec::new());
        let reply = client().get(&format!("http://{addr}/moved")).unwrap();
        assert_eq!(reply.status, 302);
        server.join().unwrap();
    }

    #[test]
    fn large_bodies_are_read_whole() {
        let big = vec![b'x'; 12 << 20];
        let (addr, server) = serve_once("200 OK", big.clone());
        let reply = client().get(&format!("http://{addr}/big")).unwrap();
        assert_eq!(reply.body.len(), big.len());
        server.join().unwrap();
    }

    #[test]
    fn an_unreachable_daemon_is_an_error() {
        // Bind then drop: nothing listens on this port any more.
        let addr = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let url = format!("http://{addr}/api/search");
        match client().post_json(&url, "{}") {
            Err(Error::Http {
                method,
                url: failed,
                ..
            }) => {
                assert_eq!((method.as_str(), failed), ("POST", url));
            }
            other => panic!("expected an HTTP error, got {other:?}"),
        }
    }
}
