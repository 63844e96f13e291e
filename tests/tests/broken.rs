//! Malformed inputs give per-file failures with specific reasons; indexing continues
//! and good files stay searchable.

use crate::harness::{index, result_paths, write, Daemon};

#[test]
fn broken_files_fail_individually_and_good_files_are_indexed() {
    let profile = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let root = profile.path();
    write(
        root,
        "Notes/good.md",
        b"# Pantry\nThe volunteer shift starts at quarter past five.\n",
    );
    write(root, "Bad/empty.pdf", b"");
    write(
        root,
        "Bad/not-a-pdf.pdf",
        b"this is plain text pretending to be a pdf",
    );
    write(
        root,
        "Bad/truncated.pdf",
        b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pa",
    );
    write(
        root,
        "Bad/random.docx",
        &[0x50, 0x4b, 0x03, 0x04, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3],
    );
    write(
        root,
        "Bad/random.xlsx",
        &(0..2048u32)
            .map(|i| (i * 7919 % 251) as u8)
            .collect::<Vec<_>>(),
    );
    write(
        root,
        "Bad/garbage.sqlite",
        b"SQLite format 3\0garbagegarbagegarbage",
    );
    write(root, "Bad/notes.ipynb", b"{\"cells\": [ {\"cell_type\": ");

    let summary = index(root, index_dir.path());
    let failures = summary["failures"].as_array().unwrap();
    let failed: Vec<&str> = failures
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for path in [
        "Bad/empty.pdf",
        "Bad/not-a-pdf.pdf",
        "Bad/truncated.pdf",
        "Bad/random.docx",
        "Bad/random.xlsx",
        "Bad/garbage.sqlite",
        "Bad/notes.ipynb",
    ] {
        assert!(
            failed.contains(&path),
            "{path} should fail; failures: {failures:?}"
        );
    }
    for failure in failures {
        let reason = failure["reason"].as_str().unwrap();
        assert!(!reason.is_empty() && !reason.contains("panic"), "{failure}");
    }
    let empty = failures
        .iter()
        .find(|f| f["path"] == "Bad/empty.pdf")
        .unwrap();
    assert_eq!(empty["category"], "empty");
    assert_eq!(summary["files"]["indexed"], 1);

    let daemon = Daemon::start(index_dir.path());
    let (status, reply) = daemon.post("/retrieve", r#"{"query": "volunteer shift", "top_k": 3}"#);
    assert_eq!(status, 200, "{reply}");
    assert_eq!(result_paths(&reply), vec!["Notes/good.md"]);
}
