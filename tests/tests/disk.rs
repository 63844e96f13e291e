//! Storage failures of a real run: the index on a small tmpfs that fills up. The run
//! ends with exit status 1 and one line naming the missing space and the path (no
//! panic, no backtrace, even with `RUST_BACKTRACE` set); once space is freed the same
//! command completes and the index is whole. A read-only index folder is named too.
//!
//! The tmpfs is mounted in a user and mount namespace of its own (`unshare -rm`), so
//! the test needs no privileges and touches no mount of the machine.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::harness::{binary, copy_tree, repo_root};

/// Runs `script` with `sh` inside a new user and mount namespace.
fn in_namespace(script: &str, envs: &[(&str, &Path)]) -> std::process::Output {
    let mut command = Command::new("unshare");
    command.args(["--user", "--map-root-user", "--mount", "sh", "-c", script]);
    for (name, value) in envs {
        command.env(name, value);
    }
    command
        .output()
        .expect("unshare (util-linux) runs; scripts/test installs it")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Runs `script` in a namespace of its own with `$MNT` (an empty folder to mount on),
/// `$OUT` (where the script writes what the test reads), `$PROFILE` (a copy of
/// `samples/profile/<sub>`) and `$BIN` (`dentate-index`); returns `$OUT`.
fn run_script(sub: &str, script: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let profile = tempfile::tempdir().unwrap();
    copy_tree(
        &repo_root().join("samples/profile").join(sub),
        profile.path(),
    );
    let work = tempfile::tempdir().unwrap();
    let mount = work.path().join("mnt");
    let out = work.path().join("out");
    std::fs::create_dir_all(&mount).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let index_bin = binary("dentate-index");
    let ran = in_namespace(
        script,
        &[
            ("MNT", &mount),
            ("OUT", &out),
            ("PROFILE", profile.path()),
            ("BIN", &index_bin),
        ],
    );
    assert!(
        ran.status.success(),
        "the namespace script failed ({:?}): {}",
        ran.status,
        String::from_utf8_lossy(&ran.stderr)
    );
    (work, out)
}

#[test]
fn a_full_disk_is_named_and_the_same_command_completes_once_space_is_freed() {
    // 64 KiB fills while the manifest (SQLite) is written, 256 KiB while the lexical
    // index (tantivy) is; then the same index folder gets room.
    let script = r#"
set -u
mount -t tmpfs -o size=64k tmpfs "$MNT" || exit 90
run() {
  RUST_BACKTRACE=1 "$BIN" "$PROFILE" --index "$MNT/index" --no-embed --no-media --no-ocr --json \
    > "$OUT/$1.json" 2> "$OUT/$1.err"
  echo $? > "$OUT/$1.code"
}
run manifest
mount -o remount,size=256k "$MNT" || exit 91
run lexical
mount -o remount,size=256m "$MNT" || exit 92
run freed
run again
"#;
    let (_work, out) = run_script("", script);

    for run in ["manifest", "lexical"] {
        let err = read(&out.join(format!("{run}.err")));
        let code = read(&out.join(format!("{run}.code")));
        assert_eq!(code.trim(), "1", "{run}: {err}");
        assert!(
            err.starts_with("error: no space left on device while writing the index in"),
            "{run}: {err}"
        );
        assert!(err.contains("/index"), "names the path: {err}");
        for noise in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
            assert!(!err.contains(noise), "{run}: {noise:?} in: {err}");
        }
        assert!(err.lines().count() <= 2, "one line and its cause: {err}");
    }

    // Space freed: the same command completes, and the index is whole.
    let freed_err = read(&out.join("freed.err"));
    assert_eq!(read(&out.join("freed.code")).trim(), "0", "{freed_err}");
    let freed: Value = serde_json::from_str(&read(&out.join("freed.json"))).unwrap();
    assert!(freed["files"]["indexed"].as_u64().unwrap() > 10, "{freed}");
    assert_eq!(freed["files"]["failed"], 0, "{freed}");
    let again: Value = serde_json::from_str(&read(&out.join("again.json"))).unwrap();
    assert_eq!(again["files"], freed["files"], "{again}");
    assert_eq!(again["converted"], 0, "nothing left undone: {again}");
}

#[test]
fn a_read_only_index_folder_is_named() {
    let script = r#"
set -u
mount -t tmpfs -o size=64m,ro tmpfs "$MNT" || exit 90
"$BIN" "$PROFILE" --index "$MNT/index" --no-embed --json > "$OUT/ro.json" 2> "$OUT/ro.err"
echo $? > "$OUT/ro.code"
"#;
    let (_work, out) = run_script("Notes", script);
    let err = read(&out.join("ro.err"));
    assert_eq!(read(&out.join("ro.code")).trim(), "1", "{err}");
    assert!(err.contains("read-only file system"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
