//! HippoCamp's terminal commands, answered by a running Dentate daemon, so HippoCamp's
//! ReAct agents run unchanged:
//!
//! ```text
//! list_files [pattern]
//! return_txt <file_path>
//! return_metadata <file_path>
//! return_img <file_path> [output_path] [--page N]
//! return_ori <file_path> [output_path]
//! hhelp
//! ```
//!
//! One multicall binary: called through a link named like a command (see
//! `dentate-tools install DIR`), it is that command; otherwise the command is its first
//! argument (`dentate-tools return_txt Documents/a.pdf`). Each prints one JSON object on
//! stdout in HippoCamp's shape (`{"success": …, "error": …}`, keys sorted as Flask's
//! `jsonify` sorts them), nothing on stderr, and
//! exits 0 on success, 1 on failure. The daemon is `$DENTATE_URL` (default
//! `http://127.0.0.1:8080`; `…/p/NAME` for one profile of a several-profile daemon),
//! with `$DENTATE_API_KEY` as its bearer key when set. Paths are relative to the profile root; a leading
//! `$DENTATE_DATA_DIR/` (default `/hippocamp/data/`) or `./` is removed, as HippoCamp's
//! terminal does. Images from `return_img` are written to `output_path`, else to
//! `$DENTATE_OUTPUT_DIR` (default: `dentate-output` in the temporary folder).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

const COMMANDS: &[&str] = &[
    "list_files",
    "return_txt",
    "return_metadata",
    "return_img",
    "return_ori",
    "hhelp",
    "set_flags",
];

const HELP: &str = "AVAILABLE COMMANDS:\n  return_txt <file_path>\n  return_img <file_path> [output_path] [--page N]\n  return_ori <file_path> [output_path]\n  return_metadata <file_path>\n  list_files [pattern]\n";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    let invoked = args
        .first()
        .map(|a| {
            Path::new(a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    args.remove(0);
    let command = if COMMANDS.contains(&invoked.as_str()) {
        invoked
    } else if args.first().map(String::as_str) == Some("install") {
        return install(&args[1..]);
    } else if args.is_empty() || args[0] == "--help" || args[0] == "-h" {
        eprintln!("usage: dentate-tools COMMAND [ARGS…] | dentate-tools install DIR\n\n{HELP}");
        return ExitCode::from(2);
    } else {
        args.remove(0)
    };
    let reply = run(&command, &args, &Daemon::from_env());
    let ok = reply["success"] == Value::Bool(true);
    println!(
        "{}",
        serde_json::to_string_pretty(&reply).unwrap_or_default()
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `dentate-tools install DIR`: links every command name in DIR to this binary.
fn install(args: &[String]) -> ExitCode {
    let Some(dir) = args.first() else {
        eprintln!("usage: dentate-tools install DIR");
        return ExitCode::from(2);
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(error) => {
            eprintln!("cannot find this binary: {error}");
            return ExitCode::FAILURE;
        }
    };
    let dir = Path::new(dir);
    if let Err(error) = std::fs::create_dir_all(dir) {
        eprintln!("cannot create {}: {error}", dir.display());
        return ExitCode::FAILURE;
    }
    for command in COMMANDS {
        let link = dir.join(command);
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        let made = std::os::unix::fs::symlink(&exe, &link);
        #[cfg(not(unix))]
        let made = std::fs::copy(&exe, &link).map(|_| ());
        if let Err(error) = made {
            eprintln!("cannot link {}: {error}", link.display());
            return ExitCode::FAILURE;
        }
    }
    println!("linked {} in {}", COMMANDS.join(", "), dir.display());
    ExitCode::SUCCESS
}

fn failure(message: impl std::fmt::Display) -> Value {
    json!({ "success": false, "error": message.to_string() })
}

/// The daemon's HTTP address and the local folders the commands use.
struct Daemon {
    url: String,
    data_dir: String,
    output_dir: PathBuf,
    /// `$DENTATE_API_KEY`, for a daemon started with `--keys`.
    api_key: Option<String>,
}

impl Daemon {
    fn from_env() -> Daemon {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Daemon {
            url: var("DENTATE_URL")
                .unwrap_or_else(|| "http://127.0.0.1:8080".to_string())
                .trim_end_matches('/')
                .to_string(),
            data_dir: var("DENTATE_DATA_DIR").unwrap_or_else(|| "/hippocamp/data".to_string()),
            output_dir: var("DENTATE_OUTPUT_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| std::env::temp_dir().join("dentate-output")),
            api_key: var("DENTATE_API_KEY"),
        }
    }

    /// GET `route` and parse the JSON reply.
    fn get(&self, route: &str) -> Result<Value, String> {
        let client = eval::http::HttpClient::new(
            Some(Duration::from_secs(10)),
            Some(Duration::from_secs(600)),
        )
        .with_api_key(self.api_key.clone());
        let url = format!("{}{route}", self.url);
        let reply = client
            .get(&url)
            .map_err(|e| format!("cannot reach the Dentate daemon at {}: {e}", self.url))?;
        reply.json().map_err(|_| {
            format!(
                "the daemon at {} answered {} with something that is not JSON",
                self.url, reply.status
            )
        })
    }

    /// A path as the daemon wants it: relative to the profile, URL-encoded.
    fn file_route(&self, path: &str) -> Result<String, String> {
        let relative = relative_path(path, &self.data_dir);
        if relative.is_empty() {
            return Err("a file path is required".to_string());
        }
        Ok(encode_path(&relative))
    }
}

/// Strips the data folder prefix (`/hippocamp/data/`) or `./`.
fn relative_path(path: &str, data_dir: &str) -> String {
    let path = path.trim();
    let data = data_dir.trim_end_matches('/');
    let path = path
        .strip_prefix(&format!("{data}/"))
        .or_else(|| path.strip_prefix("./"))
        .unwrap_or(path);
    path.to_string()
}

/// Percent-encodes a path for a URL, keeping `/`.
fn encode_path(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

fn run(command: &str, args: &[String], daemon: &Daemon) -> Value {
    let result = match command {
        "list_files" => list_files(args, daemon),
        "return_txt" => one_path("return_txt", args).and_then(|path| {
            if path.split_whitespace().any(|w| w == "--page") {
                return Err(
                    "return_txt does not support --page; use return_img <file_path> --page N"
                        .to_string(),
                );
            }
            daemon.get(&format!(
                "/api/return_txt_full/{}",
                daemon.file_route(&path)?
            ))
        }),
        "return_metadata" => one_path("return_metadata", args).and_then(|path| {
            daemon.get(&format!(
                "/api/return_metadata/{}",
                daemon.file_route(&path)?
            ))
        }),
        "return_img" => return_img(args, daemon),
        "return_ori" => return_ori(args, daemon),
        "hhelp" => Ok(json!({ "success": true, "data": HELP, "error": null })),
        // HippoCamp's feature flags: every tool is always on here.
        "set_flags" => Ok(json!({
            "success": true, "enable_return_txt": true, "enable_return_img": true, "error": null
        })),
        other => Err(format!("unknown command {other:?}; {HELP}")),
    };
    result.unwrap_or_else(failure)
}

/// The one path argument of `return_txt`/`return_metadata`. Unquoted words of a path
/// with spaces arrive as several arguments: they are joined back, as HippoCamp's agent
/// wrappers do.
fn one_path(command: &str, args: &[String]) -> Result<String, String> {
    if args.is_empty() {
        return Err(format!("Usage: {command} <file_path>"));
    }
    Ok(args.join(" "))
}

fn list_files(args: &[String], daemon: &Daemon) -> Result<Value, String> {
    let pattern = args.join(" ");
    let reply = daemon.get(&format!(
        "/api/files/list?pattern={}",
        encode_path(&pattern).replace('/', "%2F")
    ))?;
    if reply["success"] != Value::Bool(true) {
        return Ok(reply);
    }
    let files = reply["files"].clone();
    Ok(json!({
        "success": true,
        "count": files.as_array().map_or(0, Vec::len),
        "data": files,
        "error": null,
    }))
}

/// Splits `[path…] [output_path] [--page N]`.
fn path_output_page(args: &[String]) -> Result<(String, Option<String>, Option<String>), String> {
    let mut positional = Vec::new();
    let mut page = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--page" {
            page = Some(
                iter.next()
                    .ok_or("--page needs a page number")?
                    .trim()
                    .to_string(),
            );
        } else if let Some(value) = arg.strip_prefix("--page=") {
            page = Some(value.trim().to_string());
        } else {
            positional.push(arg.clone());
        }
    }
    match positional.len() {
        0 => Err("a file path is required".to_string()),
        1 => Ok((positional.remove(0), None, page)),
        2 => {
            let output = positional.pop();
            Ok((positional.remove(0), output, page))
        }
        _ => Err("too many arguments: quote a path that contains spaces".to_string()),
    }
}

fn return_img(args: &[String], daemon: &Daemon) -> Result<Value, String> {
    let (path, output, page) = path_output_page(args)
        .map_err(|e| format!("{e}. Usage: return_img <file_path> [output_path] [--page N]"))?;
    let mut route = format!("/api/return_img/{}", daemon.file_route(&path)?);
    if let Some(page) = &page {
        route.push_str(&format!("?page={}", encode_path(page)));
    }
    let mut reply = daemon.get(&route)?;
    if reply["success"] != Value::Bool(true) {
        return Ok(reply);
    }
    let b64 = reply["image_b64"].as_str().unwrap_or_default();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| format!("the daemon sent an image that is not base64: {e}"))?;
    let target = match output {
        Some(output) => PathBuf::from(output),
        None => {
            let name = reply["image_path"]
                .as_str()
                .and_then(|p| Path::new(p).file_name())
                .map(|n| n.to_os_string())
                .unwrap_or_else(|| "image.jpg".into());
            daemon.output_dir.join(name)
        }
    };
    write_file(&target, &bytes)?;
    let written = target.display().to_string();
    if let Some(object) = reply.as_object_mut() {
        object.insert("image_path".into(), json!(written));
        object.insert("image_paths".into(), json!([written]));
    }
    Ok(reply)
}

fn return_ori(args: &[String], daemon: &Daemon) -> Result<Value, String> {
    let (path, output, page) = path_output_page(args)
        .map_err(|e| format!("{e}. Usage: return_ori <file_path> [output_path]"))?;
    if page.is_some() {
        return Err(
            "return_ori takes no --page. Usage: return_ori <file_path> [output_path]".into(),
        );
    }
    let mut reply = daemon.get(&format!(
        "/api/return_ori_full/{}",
        daemon.file_route(&path)?
    ))?;
    if reply["success"] != Value::Bool(true) {
        return Ok(reply);
    }
    if let Some(output) = output {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(reply["file_b64"].as_str().unwrap_or_default())
            .map_err(|e| format!("the daemon sent bytes that are not base64: {e}"))?;
        let target = PathBuf::from(&output);
        write_file(&target, &bytes)?;
        if let Some(object) = reply.as_object_mut() {
            object.insert("output_path".into(), json!(target.display().to_string()));
        }
    }
    Ok(reply)
}

fn write_file(target: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(target, bytes).map_err(|e| format!("cannot write {}: {e}", target.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn paths_are_made_relative_and_encoded() {
        assert_eq!(
            relative_path("/hippocamp/data/Documents/a b.pdf", "/hippocamp/data"),
            "Documents/a b.pdf"
        );
        assert_eq!(relative_path("./x.txt", "/hippocamp/data/"), "x.txt");
        assert_eq!(relative_path("Mail/x.eml", "/data"), "Mail/x.eml");
        assert_eq!(
            encode_path("A & B (1)/é.pdf"),
            "A%20%26%20B%20%281%29/%C3%A9.pdf"
        );
        assert_eq!(encode_path("../x"), "../x");
    }

    #[test]
    fn image_arguments_in_every_form() {
        assert_eq!(
            path_output_page(&strings(&["a.pdf"])).unwrap(),
            ("a.pdf".into(), None, None)
        );
        assert_eq!(
            path_output_page(&strings(&["a.pdf", "--page", "3"])).unwrap(),
            ("a.pdf".into(), None, Some("3".into()))
        );
        assert_eq!(
            path_output_page(&strings(&["a.pdf", "out.png", "--page", "2"])).unwrap(),
            ("a.pdf".into(), Some("out.png".into()), Some("2".into()))
        );
        assert!(path_output_page(&strings(&["a", "b", "c"])).is_err());
        assert!(path_output_page(&strings(&["a.pdf", "--page"])).is_err());
        assert!(path_output_page(&[]).is_err());
    }

    #[test]
    fn an_unreachable_daemon_is_a_clear_failure() {
        let daemon = Daemon {
            url: "http://127.0.0.1:9".to_string(),
            data_dir: "/hippocamp/data".to_string(),
            output_dir: std::env::temp_dir(),
            api_key: Some("k".to_string()),
        };
        let reply = run("return_txt", &strings(&["a.txt"]), &daemon);
        assert_eq!(reply["success"], false);
        assert!(reply["error"]
            .as_str()
            .unwrap()
            .contains("cannot reach the Dentate daemon"));
        assert_eq!(run("nope", &[], &daemon)["success"], false);
        assert_eq!(run("return_txt", &[], &daemon)["success"], false);
    }
}
