//! Several profiles in one daemon (`--profile NAME=INDEX_DIR`, repeatable; `--index DIR`
//! is the one-profile shorthand, named `default`).
//!
//! Each profile is an [`Engine`] over its own index; the engines share the loaded models
//! ([`Engine::sharing_models`]) and nothing else. Over HTTP a request picks its profile
//! with the path prefix `/p/NAME/` on every route (`/p/alice/retrieve`,
//! `/p/alice/api/return_txt/…`); unprefixed routes serve the first profile, so
//! single-profile clients work unchanged. Each prefix is a router of its own (the
//! profile's engine, its own folder for `return_img` images), so a route can only ever
//! reach its own profile's units and files. Over gRPC the `x-dentate-profile` metadata
//! picks it ([`crate::grpc::profiles`]).
//!
//! With a key file ([`crate::auth`]), every route but `/health` needs a key that opens
//! the profile the route belongs to.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json, Router};
use serde_json::json;

use crate::auth::{Denied, KeyStore};
use crate::engine::Engine;
use crate::http::hippocamp::OutputDir;

/// The profile of a single-index daemon (`--index DIR`).
pub const DEFAULT_PROFILE: &str = "default";
/// The HTTP path prefix that selects a profile: `/p/NAME/…`.
pub const PATH_PREFIX: &str = "/p/";
/// The gRPC metadata key that selects a profile.
pub const PROFILE_METADATA: &str = "x-dentate-profile";

/// `NAME=INDEX_DIR` from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileSpec {
    pub name: String,
    pub index: PathBuf,
}

impl std::str::FromStr for ProfileSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<ProfileSpec, String> {
        let Some((name, index)) = text.split_once('=') else {
            return Err(format!(
                "expected NAME=INDEX_DIR, got {text:?} (the Qdrant backend's profile folder is --profile-root DIR)"
            ));
        };
        check_name(name)?;
        if index.is_empty() {
            return Err(format!("profile {name:?} has no index folder"));
        }
        Ok(ProfileSpec {
            name: name.to_string(),
            index: PathBuf::from(index),
        })
    }
}

/// Profile names are URL path segments and metadata values: 1–64 ASCII letters, digits,
/// `-` and `_`.
pub fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "invalid profile name {name:?}: use 1 to 64 letters, digits, '-' or '_'"
        ))
    }
}

/// One served profile.
#[derive(Clone)]
pub struct Profile {
    pub name: String,
    pub engine: Arc<Engine>,
}

/// The profiles of a daemon, in command-line order (the first answers unprefixed
/// routes and requests without `x-dentate-profile`).
#[derive(Clone)]
pub struct Profiles {
    list: Vec<Profile>,
}

impl Profiles {
    /// At least one profile, names unique and valid.
    pub fn new(list: Vec<Profile>) -> Result<Profiles, String> {
        if list.is_empty() {
            return Err("no profile to serve".into());
        }
        for (i, profile) in list.iter().enumerate() {
            check_name(&profile.name)?;
            if list[..i].iter().any(|p| p.name == profile.name) {
                return Err(format!("profile {:?} is given twice", profile.name));
            }
        }
        Ok(Profiles { list })
    }

    /// One engine as the profile `default`.
    pub fn single(engine: Arc<Engine>) -> Profiles {
        Profiles {
            list: vec![Profile {
                name: DEFAULT_PROFILE.to_string(),
                engine,
            }],
        }
    }

    pub fn first(&self) -> &Profile {
        &self.list[0]
    }

    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.list.iter().find(|p| p.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Profile> {
        self.list.iter()
    }

    pub fn names(&self) -> Vec<String> {
        self.list.iter().map(|p| p.name.clone()).collect()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Where a profile's `return_img` images go: the daemon's output folder with one
    /// profile, its `NAME/` subfolder with several (one profile's images are never
    /// served to another).
    fn output_dir(&self, base: &OutputDir, name: &str) -> OutputDir {
        if self.list.len() == 1 {
            base.clone()
        } else {
            OutputDir(base.0.join(name))
        }
    }
}

pub use crate::http::web::UrlPrefix;

/// What a profile's HTTP routes check before answering.
#[derive(Clone)]
struct Gate {
    keys: Option<Arc<KeyStore>>,
    profile: String,
}

/// The HTTP routes of every profile: `/p/NAME/…` for each, unprefixed for the first.
pub fn http_router(profiles: &Profiles, keys: Option<Arc<KeyStore>>, output: &OutputDir) -> Router {
    let routes_of = |profile: &Profile, prefix: &str| {
        crate::http::router_with_output(
            profile.engine.clone(),
            profiles.output_dir(output, &profile.name),
        )
        .layer(Extension(UrlPrefix(prefix.to_string())))
        .layer(axum::middleware::from_fn_with_state(
            Gate {
                keys: keys.clone(),
                profile: profile.name.clone(),
            },
            gate,
        ))
    };
    let mut router = routes_of(profiles.first(), "");
    for profile in profiles.iter() {
        let prefix = format!("{PATH_PREFIX}{}", profile.name);
        router = router.nest(&prefix, routes_of(profile, &prefix));
    }
    let fallback = Fallback {
        keys,
        names: profiles.names(),
    };
    router.fallback(move |request: Request| unknown_route(fallback.clone(), request))
}

/// A refusal: 401 (with `WWW-Authenticate: Bearer`) or 403, `{"error", "success": false}`.
pub fn denied_response(denied: &Denied) -> Response {
    let body = Json(json!({ "error": denied.message(), "success": false }));
    match denied {
        Denied::Unauthenticated(_) => (
            StatusCode::UNAUTHORIZED,
            [(WWW_AUTHENTICATE, "Bearer")],
            body,
        )
            .into_response(),
        Denied::Forbidden(_) => (StatusCode::FORBIDDEN, body).into_response(),
    }
}

/// Lets a request through when the key file (if any) opens the profile; `/health`
/// stays open.
async fn gate(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    let Some(keys) = &gate.keys else {
        return next.run(request).await;
    };
    if request.uri().path() == "/health" {
        return next.run(request).await;
    }
    let authorization = request.headers().get(AUTHORIZATION).map(|v| v.as_bytes());
    match keys.authorize(authorization, &gate.profile) {
        Ok(grant) => {
            request.extensions_mut().insert(grant);
            next.run(request).await
        }
        Err(denied) => denied_response(&denied),
    }
}

#[derive(Clone)]
struct Fallback {
    keys: Option<Arc<KeyStore>>,
    names: Vec<String>,
}

/// 404 for a route no profile has; `/p/NAME/…` for a profile this daemon does not serve
/// is judged by the key first, so a key cannot probe for other profiles' names.
async fn unknown_route(fallback: Fallback, request: Request) -> Response {
    let path = request.uri().path();
    let message = match path.strip_prefix(PATH_PREFIX) {
        Some(rest) => {
            let name = rest.split('/').next().unwrap_or_default();
            if let Some(keys) = &fallback.keys {
                let authorization = request.headers().get(AUTHORIZATION).map(|v| v.as_bytes());
                if let Err(denied) = keys.authorize(authorization, name) {
                    return denied_response(&denied);
                }
            }
            if fallback.names.iter().any(|n| n == name) {
                format!("no route {path}")
            } else {
                format!(
                    "no profile {name:?}; this daemon serves {}",
                    fallback.names.join(", ")
                )
            }
        }
        None => format!("no route {path}"),
    };
    (
        StatusCode::NOT_FOUND,
        Json(json!({ "error": message, "success": false })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_specs_parse_and_bad_ones_say_why() {
        let spec: ProfileSpec = "alice=/srv/idx/a=b".parse().unwrap();
        assert_eq!(spec.name, "alice");
        assert_eq!(spec.index, PathBuf::from("/srv/idx/a=b"));
        for (bad, reason) in [
            ("/srv/profile", "--profile-root"),
            ("=/srv/idx", "invalid profile name"),
            ("a/b=/srv/idx", "invalid profile name"),
            ("al ice=/srv/idx", "invalid profile name"),
            ("alice=", "no index folder"),
        ] {
            let error = bad.parse::<ProfileSpec>().unwrap_err();
            assert!(error.contains(reason), "{bad}: {error}");
        }
        assert!(check_name(&"x".repeat(64)).is_ok());
        assert!(check_name(&"x".repeat(65)).is_err());
    }
}
