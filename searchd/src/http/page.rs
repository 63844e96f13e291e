//! The web page for people: `GET /` and its assets under `/ui/`, compiled into the
//! binary from `searchd/web/` (plain HTML, CSS and JavaScript modules; no framework, no
//! CDN, no network access at run time). The page talks only to the daemon's own JSON
//! routes (`/api/search`, `/api/timeline`, `/api/stats`, `/api/return_txt_full`,
//! `/api/return_img`, `/api/serve_file`), so it gets the same path checks as any client.
//!
//! Every page response carries a strict Content-Security-Policy: scripts and styles from
//! this origin only (no inline script, no inline handlers, no `eval`), images and media
//! from this origin or `blob:` URLs the page made itself, nothing framed. Every other
//! response of the daemon (JSON, files served from the profile) gets
//! `default-src 'none'; sandbox` unless it set a policy of its own, so an HTML file of
//! the profile opened from `/api/serve_file/` cannot run script on the page's origin.

use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// The policy of the page and its assets.
pub const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' blob:; media-src 'self' blob:; connect-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The policy of every other response (JSON, files of the profile).
pub const OTHER_POLICY: &str = "default-src 'none'; sandbox";

/// One compiled-in asset.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static str,
}

/// A file of `searchd/web/` served under `/ui/`.
macro_rules! ui {
    ($file:literal, $content_type:expr) => {
        Asset {
            path: concat!("/ui/", $file),
            content_type: $content_type,
            body: include_str!(concat!("../../web/", $file)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// The page's files, served at their `path`.
const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_str!("../../web/index.html"),
    },
    ui!("app.css", "text/css; charset=utf-8"),
    ui!("icon.svg", "image/svg+xml"),
    ui!("app.js", JS),
    ui!("api.js", JS),
    ui!("dom.js", JS),
    ui!("search.js", JS),
    ui!("evidence.js", JS),
    ui!("viewer.js", JS),
    ui!("timeline.js", JS),
];

/// The page's routes.
pub fn router() -> Router {
    let mut router = Router::new();
    for asset in ASSETS {
        router = router.route(asset.path, get(move || async move { serve(asset) }));
    }
    router
}

/// `api` (the daemon's JSON and file routes) plus the page, with the security headers
/// on every response.
pub fn with_page(api: Router) -> Router {
    api.merge(router())
        .layer(axum::middleware::map_response(secure))
}

fn serve(asset: &'static Asset) -> Response {
    let mut response = (StatusCode::OK, asset.body).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_POLICY),
    );
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // Small files that change with the binary: revalidate rather than cache stale.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Headers every response gets: no MIME sniffing, no referrer, and a sandboxing policy
/// unless the response has one (the page's) or is a PDF (a sandboxed document cannot
/// show the browser's PDF viewer; a PDF runs no script of the page's origin).
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    let is_pdf = headers
        .get(CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/pdf"));
    if !is_pdf && !headers.contains_key(CONTENT_SECURITY_POLICY) {
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(OTHER_POLICY),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_no_inline_script_or_style() {
        for word in ["unsafe-inline", "unsafe-eval", "*", "data:", "http:"] {
            assert!(!PAGE_POLICY.contains(word), "{word}");
        }
        assert!(PAGE_POLICY.contains("script-src 'self';"));
    }

    #[test]
    fn the_page_has_no_inline_script_style_or_handlers() {
        for asset in ASSETS
            .iter()
            .filter(|a| a.content_type.starts_with("text/html"))
        {
            let html = asset.body.to_ascii_lowercase();
            // Scripts only by src; no style elements or attributes; no on* handlers.
            for script in html.split("<script").skip(1) {
                let tag = script.split('>').next().unwrap_or_default();
                assert!(tag.contains("src="), "inline script in {}", asset.path);
                assert!(
                    script[tag.len() + 1..].trim_start().starts_with("</script"),
                    "{}",
                    asset.path
                );
            }
            assert!(!html.contains("<style"), "{}", asset.path);
            assert!(!html.contains(" style="), "{}", asset.path);
            let handler = html
                .split(|c: char| c.is_whitespace())
                .any(|word| word.starts_with("on") && word.contains('='));
            assert!(!handler, "inline handler in {}", asset.path);
        }
    }

    #[test]
    fn scripts_never_write_markup_from_strings() {
        for asset in ASSETS.iter().filter(|a| a.path.ends_with(".js")) {
            for banned in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "eval(",
                "new Function",
            ] {
                assert!(!asset.body.contains(banned), "{} uses {banned}", asset.path);
            }
        }
    }

    #[test]
    fn every_module_import_is_served() {
        for asset in ASSETS.iter().filter(|a| a.path.ends_with(".js")) {
            for line in asset.body.lines().filter(|l| l.starts_with("import ")) {
                let target = line
                    .rsplit_once("from ")
                    .map(|(_, t)| t.trim().trim_end_matches(';').trim_matches('"'))
                    .unwrap_or_default();
                let served = format!("/ui/{}", target.trim_start_matches("./"));
                assert!(
                    ASSETS.iter().any(|a| a.path == served),
                    "{} imports {target}, which is not served",
                    asset.path
                );
            }
        }
    }
}
