// Included by the build scripts of the crates whose tests need what the repository does
// not hold (`include!`, so one copy serves them all). It sets two cfgs:
//
// - `dentate_shared`: `../shared/corpus` is beside the repository;
// - `dentate_qdrant`: a Qdrant server is at hand (`../shared/bin/qdrant`, or
//   `DENTATE_QDRANT_URL`).
//
// Tests that need them carry `#[cfg_attr(not(dentate_shared), ignore = "…")]`, so
// without them the test runner counts them as skipped, never as passed.
// `DENTATE_REQUIRE_SHARED=1` and `DENTATE_REQUIRE_QDRANT=1` (set by `scripts/test`, and
// so CI) set the cfgs whatever is present: a missing corpus or server then fails the
// tests instead of skipping them.

fn declare_test_needs() {
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let shared = manifest.join("../../shared");
    println!("cargo::rustc-check-cfg=cfg(dentate_shared)");
    println!("cargo::rustc-check-cfg=cfg(dentate_qdrant)");
    for name in ["DENTATE_REQUIRE_SHARED", "DENTATE_REQUIRE_QDRANT", "DENTATE_QDRANT_URL"] {
        println!("cargo::rerun-if-env-changed={name}");
    }
    // Cargo runs the script again when one of these appears or goes (a path that does
    // not exist keeps the script running at every build, which costs little).
    for watched in ["corpus/persona/qa_dev.json", "bin/qdrant"] {
        println!("cargo::rerun-if-changed={}", shared.join(watched).display());
    }
    let required = |name: &str| std::env::var_os(name).is_some_and(|v| v != "0" && !v.is_empty());
    if shared.join("corpus").is_dir() || required("DENTATE_REQUIRE_SHARED") {
        println!("cargo::rustc-cfg=dentate_shared");
    }
    if shared.join("bin/qdrant").is_file()
        || std::env::var_os("DENTATE_QDRANT_URL").is_some()
        || required("DENTATE_REQUIRE_QDRANT")
    {
        println!("cargo::rustc-cfg=dentate_qdrant");
    }
}
