//! API keys (`--keys FILE`): who may read which profile.
//!
//! The key file is TOML, one `[[key]]` table per key; plaintext keys are never stored,
//! only their SHA-256:
//!
//! ```toml
//! [[key]]
//! name = "alice-laptop"
//! sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
//! profiles = ["alice"]          # or "*" for every profile
//! role = "read"                 # optional: "read" (default) or "admin"
//! ```
//!
//! A request carries `Authorization: Bearer KEY` (HTTP header or gRPC metadata). The
//! presented key is hashed and its digest compared with every stored digest in constant
//! time (no early exit, no data-dependent branch per byte). No key, a malformed header or
//! an unknown key is *unauthenticated* (HTTP 401, gRPC UNAUTHENTICATED); a known key
//! without the requested profile is *forbidden* (HTTP 403, gRPC PERMISSION_DENIED).
//! Every route the daemon has today only reads; `role` is recorded and checked for
//! validity so that a future write route can require `admin`.
//!
//! The file is re-read on SIGHUP ([`watch_sighup`]); a file that no longer parses keeps
//! the previous keys in force and says why on stderr.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use thiserror::Error;

/// Why a key file cannot be used.
#[derive(Debug, Error)]
pub enum KeyFileError {
    #[error("cannot read the key file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the key file {path} is not valid: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// What a key may do in the profiles it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Search and read files (every route the daemon has).
    #[default]
    Read,
    /// Everything `read` may, and future administrative routes.
    Admin,
}

/// The profiles a key opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileAccess {
    All,
    Only(Vec<String>),
}

impl ProfileAccess {
    pub fn allows(&self, profile: &str) -> bool {
        match self {
            ProfileAccess::All => true,
            ProfileAccess::Only(names) => names.iter().any(|name| name == profile),
        }
    }
}

/// One stored key.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub name: String,
    digest: [u8; 32],
    pub profiles: ProfileAccess,
    pub role: Role,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFileToml {
    #[serde(default)]
    key: Vec<KeyToml>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ProfilesToml {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyToml {
    name: String,
    sha256: String,
    profiles: ProfilesToml,
    #[serde(default)]
    role: Role,
}

/// The SHA-256 of `key`.
pub fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The SHA-256 of `key` in lower-case hex, as the key file stores it.
pub fn digest_hex(key: &str) -> String {
    digest(key).iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_digest(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// The keys of one version of the key file.
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    keys: Vec<ApiKey>,
}

impl KeySet {
    /// Parses a key file's text; every profile a key names must be one of `profiles`.
    pub fn parse(text: &str, profiles: &[String]) -> Result<KeySet, String> {
        let file: KeyFileToml = toml::from_str(text).map_err(|e| e.to_string())?;
        if file.key.is_empty() {
            return Err("no [[key]] tables: the file would lock everyone out".into());
        }
        let mut keys: Vec<ApiKey> = Vec::new();
        for (i, key) in file.key.into_iter().enumerate() {
            let label = format!("key {} ({:?})", i + 1, key.name);
            if key.name.trim().is_empty() {
                return Err(format!("key {} has an empty name", i + 1));
            }
            if keys.iter().any(|k| k.name == key.name) {
                return Err(format!("{label}: the name is used twice"));
            }
            let digest = parse_digest(&key.sha256).ok_or_else(|| {
                format!("{label}: sha256 must be 64 hex digits (the key's SHA-256, e.g. from `dentate-searchd new-key`)")
            })?;
            if keys.iter().any(|k| bool::from(k.digest.ct_eq(&digest))) {
                return Err(format!("{label}: the same key is listed twice"));
            }
            let names = match key.profiles {
                ProfilesToml::One(name) => vec![name],
                ProfilesToml::Many(names) => names,
            };
            let access = if names.iter().any(|n| n == "*") {
                ProfileAccess::All
            } else if names.is_empty() {
                return Err(format!("{label}: profiles is empty"));
            } else {
                if let Some(unknown) = names.iter().find(|n| !profiles.contains(n)) {
                    return Err(format!(
                        "{label}: unknown profile {unknown:?} (the daemon serves {})",
                        profiles.join(", ")
                    ));
                }
                ProfileAccess::Only(names)
            };
            keys.push(ApiKey {
                name: key.name,
                digest,
                profiles: access,
                role: key.role,
            });
        }
        Ok(KeySet { keys })
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key whose digest is the presented key's, comparing every stored digest in
    /// constant time.
    pub fn identify(&self, presented: &str) -> Option<&ApiKey> {
        let wanted = digest(presented);
        let mut found = None;
        for key in &self.keys {
            // No early exit: every digest is compared whatever matched before.
            if bool::from(key.digest.ct_eq(&wanted)) {
                found = Some(key);
            }
        }
        found
    }
}

/// Why a request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No key, a malformed `Authorization` value, or an unknown key (401).
    Unauthenticated(String),
    /// A known key without the profile (403).
    Forbidden(String),
}

impl Denied {
    pub fn message(&self) -> &str {
        match self {
            Denied::Unauthenticated(m) | Denied::Forbidden(m) => m,
        }
    }
}

/// The key a request was let in with.
#[derive(Debug, Clone)]
pub struct Grant {
    pub key: String,
    pub role: Role,
}

/// The key file in force, re-read on SIGHUP.
#[derive(Debug)]
pub struct KeyStore {
    path: PathBuf,
    profiles: Vec<String>,
    current: RwLock<Arc<KeySet>>,
}

impl KeyStore {
    /// Reads the key file for a daemon serving `profiles`.
    pub fn load(path: &Path, profiles: &[String]) -> Result<KeyStore, KeyFileError> {
        let keys = read_key_file(path, profiles)?;
        Ok(KeyStore {
            path: path.to_path_buf(),
            profiles: profiles.to_vec(),
            current: RwLock::new(Arc::new(keys)),
        })
    }

    /// Re-reads the file; on error the keys in force stay. Returns the new key count.
    pub fn reload(&self) -> Result<usize, KeyFileError> {
        let keys = read_key_file(&self.path, &self.profiles)?;
        let count = keys.len();
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(keys);
        Ok(count)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn keys(&self) -> Arc<KeySet> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Judges a request for `profile` by its `Authorization` value.
    pub fn authorize(&self, authorization: Option<&[u8]>, profile: &str) -> Result<Grant, Denied> {
        let Some(value) = authorization else {
            return Err(Denied::Unauthenticated(
                "this daemon needs an API key: send `Authorization: Bearer KEY`".into(),
            ));
        };
        let presented = std::str::from_utf8(value)
            .ok()
            .and_then(bearer_token)
            .ok_or_else(|| {
                Denied::Unauthenticated(
                    "malformed Authorization value: expected `Bearer KEY`".into(),
                )
            })?;
        let keys = self.keys();
        let Some(key) = keys.identify(presented) else {
            return Err(Denied::Unauthenticated("unknown API key".into()));
        };
        if !key.profiles.allows(profile) {
            return Err(Denied::Forbidden(format!(
                "the API key {:?} does not open profile {profile:?}",
                key.name
            )));
        }
        Ok(Grant {
            key: key.name.clone(),
            role: key.role,
        })
    }
}

fn read_key_file(path: &Path, profiles: &[String]) -> Result<KeySet, KeyFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| KeyFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    KeySet::parse(&text, profiles).map_err(|message| KeyFileError::Invalid {
        path: path.to_path_buf(),
        message,
    })
}

/// The token of `Bearer TOKEN` (scheme case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let value = value.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Re-reads the key file on every SIGHUP, for the life of the runtime.
pub fn watch_sighup(store: Arc<KeyStore>) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hangups = signal(SignalKind::hangup())?;
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                match store.reload() {
                    Ok(count) => {
                        eprintln!("reloaded {count} API keys from {}", store.path().display())
                    }
                    Err(error) => eprintln!("error: {error}; the previous keys stay in force"),
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = store;
    Ok(())
}

/// A new random key (32 bytes from the system's random source, URL-safe base64).
pub fn new_key() -> std::io::Result<String> {
    use base64::Engine as _;
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(format!(
        "dnt_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// The `[[key]]` table for a key.
pub fn key_table(name: &str, key: &str, profiles: &[String], role: Role) -> String {
    let profiles = if profiles.is_empty() || profiles.iter().any(|p| p == "*") {
        "\"*\"".to_string()
    } else {
        format!(
            "[{}]",
            profiles
                .iter()
                .map(|p| format!("{p:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let role = match role {
        Role::Read => "read",
        Role::Admin => "admin",
    };
    format!(
        "[[key]]\nname = {name:?}\nsha256 = \"{}\"\nprofiles = {profiles}\nrole = \"{role}\"\n",
        digest_hex(key)
    )
}

/// Refuses to serve without keys on an address other machines can reach, unless the
/// operator said `--insecure-no-auth`.
pub fn check_exposure(addrs: &[SocketAddr], has_keys: bool, insecure: bool) -> Result<(), String> {
    let exposed: Vec<String> = addrs
        .iter()
        .filter(|a| !a.ip().is_loopback())
        .map(ToString::to_string)
        .collect();
    if exposed.is_empty() || has_keys || insecure {
        return Ok(());
    }
    Err(format!(
        "refusing to listen on {} without API keys: anyone who can reach it could read every indexed file. \
         Give --keys FILE (see `dentate-searchd new-key`), bind to 127.0.0.1, or pass --insecure-no-auth \
         if another layer (a firewall, a container network, a reverse proxy) guards the port",
        exposed.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profiles() -> Vec<String> {
        vec!["alice".into(), "bob".into()]
    }

    fn file(entries: &[(&str, &str, &str)]) -> String {
        entries
            .iter()
            .map(|(name, key, profiles)| {
                format!(
                    "[[key]]\nname = \"{name}\"\nsha256 = \"{}\"\nprofiles = {profiles}\n",
                    digest_hex(key)
                )
            })
            .collect()
    }

    fn store(text: &str) -> (tempfile::TempDir, KeyStore) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.toml");
        std::fs::write(&path, text).unwrap();
        let store = KeyStore::load(&path, &profiles()).unwrap();
        (dir, store)
    }

    #[test]
    fn sha256_matches_the_standard_vector() {
        assert_eq!(
            digest_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn keys_open_their_profiles_only() {
        let (_dir, store) = store(&file(&[
            ("a", "key-a", "[\"alice\"]"),
            ("all", "key-all", "\"*\""),
        ]));
        let auth = |value: &str, profile: &str| store.authorize(Some(value.as_bytes()), profile);
        assert_eq!(auth("Bearer key-a", "alice").unwrap().key, "a");
        assert_eq!(auth("bearer  key-a ", "alice").unwrap().role, Role::Read);
        assert!(matches!(
            auth("Bearer key-a", "bob"),
            Err(Denied::Forbidden(_))
        ));
        assert_eq!(auth("Bearer key-all", "bob").unwrap().key, "all");
        for bad in ["Bearer nope", "key-a", "Basic key-a", "Bearer ", ""] {
            assert!(
                matches!(auth(bad, "alice"), Err(Denied::Unauthenticated(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            store.authorize(None, "alice"),
            Err(Denied::Unauthenticated(_))
        ));
        assert!(matches!(
            store.authorize(Some(&[0xff, 0xfe]), "alice"),
            Err(Denied::Unauthenticated(_))
        ));
    }

    #[test]
    fn bad_key_files_are_refused_with_the_reason() {
        let digest = digest_hex("k");
        for (text, reason) in [
            ("", "no [[key]]"),
            ("[[key]]\nname = \"x\"\nsha256 = \"abc\"\nprofiles = \"*\"\n", "64 hex"),
            (
                &format!("[[key]]\nname = \"x\"\nsha256 = \"{digest}\"\nprofiles = [\"carol\"]\n"),
                "unknown profile \"carol\"",
            ),
            (
                &format!("[[key]]\nname = \"x\"\nsha256 = \"{digest}\"\nprofiles = \"*\"\nrole = \"root\"\n"),
                "root",
            ),
            (
                &format!("[[key]]\nname = \"x\"\nsha256 = \"{digest}\"\nprofiles = \"*\"\ncolour = 1\n"),
                "colour",
            ),
            (&file(&[("x", "k", "\"*\""), ("x", "j", "\"*\"")]), "used twice"),
            (&file(&[("x", "k", "\"*\""), ("y", "k", "\"*\"")]), "listed twice"),
            (&file(&[("x", "k", "[]")]), "profiles is empty"),
        ] {
            let error = KeySet::parse(text, &profiles()).unwrap_err();
            assert!(error.contains(reason), "{text:?}: {error}");
        }
    }

    #[test]
    fn reload_replaces_the_keys_and_a_broken_file_keeps_the_old_ones() {
        let (dir, store) = store(&file(&[("a", "key-a", "\"*\"")]));
        let path = dir.path().join("keys.toml");
        std::fs::write(&path, file(&[("b", "key-b", "\"*\"")])).unwrap();
        assert_eq!(store.reload().unwrap(), 1);
        assert!(store.authorize(Some(b"Bearer key-a"), "alice").is_err());
        assert!(store.authorize(Some(b"Bearer key-b"), "alice").is_ok());
        std::fs::write(&path, "[[key]]\nname = 1\n").unwrap();
        assert!(store.reload().is_err());
        assert!(store.authorize(Some(b"Bearer key-b"), "alice").is_ok());
    }

    #[test]
    fn a_generated_key_round_trips_through_its_table() {
        let key = new_key().unwrap();
        assert!(key.len() > 40 && key.starts_with("dnt_"));
        assert_ne!(key, new_key().unwrap());
        let table = key_table("laptop", &key, &["alice".into()], Role::Admin);
        let set = KeySet::parse(&table, &profiles()).unwrap();
        let found = set.identify(&key).unwrap();
        assert_eq!((found.name.as_str(), found.role), ("laptop", Role::Admin));
        assert!(found.profiles.allows("alice") && !found.profiles.allows("bob"));
    }

    #[test]
    fn exposed_binds_need_keys_or_an_explicit_override() {
        let local: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let v6: SocketAddr = "[::1]:8080".parse().unwrap();
        let open: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert!(check_exposure(&[local, v6], false, false).is_ok());
        let error = check_exposure(&[local, open], false, false).unwrap_err();
        assert!(error.contains("0.0.0.0:8080") && error.contains("--keys"));
        assert!(check_exposure(&[open], true, false).is_ok());
        assert!(check_exposure(&[open], false, true).is_ok());
    }
}
