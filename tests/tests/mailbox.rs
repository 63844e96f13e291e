//! Nothing of a mail is lost: a 200-message mbox becomes 200 message units, each with
//! its own date and place in the mailbox, its attachments files of their own; a long
//! e-mail's late text is found. Through the real binaries and HTTP.

use serde_json::{json, Value};

use crate::harness::{index, result_for, write, Daemon};

/// A Thunderbird-style mailbox (no extension) of `n` messages; message `k` says
/// `parcel-<k>` and is dated day `1 + (k - 1) % 28` of the month `(k - 1) / 28`.
fn mailbox(n: usize) -> String {
    const MONTHS: [&str; 8] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug"];
    let mut out = String::new();
    for k in 1..=n {
        let (day, month) = (1 + (k - 1) % 28, MONTHS[(k - 1) / 28]);
        out.push_str(&format!(
            "From sender{k}@example.com Mon Jan  1 10:00:00 2024\n\
             From: Sender {k} <sender{k}@example.com>\nTo: me@example.com\n\
             Subject: Delivery note {k}\nDate: {day} {month} 2024 09:30:00 +0000\n\
             Message-ID: <m{k}@example.com>\n"
        ));
        if k == 12 {
            out.push_str(
                "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\n\
                 Content-Type: text/plain\n\nThe report is attached.\n--b\n\
                 Content-Type: text/plain; name=\"report.txt\"\n\
                 Content-Disposition: attachment; filename=\"report.txt\"\n\n\
                 The quarterly lighthouse inspection found a cracked lantern pane.\n--b--\n\n",
            );
            continue;
        }
        out.push_str(&format!("\nYour parcel-{k} is on its way.\n"));
        if k % 9 == 0 {
            out.push_str(">From the depot, with thanks.\n");
        }
        out.push('\n');
    }
    out
}

fn search(daemon: &Daemon, query: &str) -> Value {
    let body = json!({"query": query, "top_k": 5, "mode": "lexical"}).to_string();
    let (status, reply) = daemon.post("/retrieve", &body);
    assert_eq!(status, 200, "{reply}");
    reply
}

#[test]
fn mailboxes_and_long_mail_lose_nothing() {
    let profile = tempfile::tempdir().unwrap();
    let root = profile.path();
    write(root, "Mail/Local Folders/Inbox", mailbox(200).as_bytes());
    let mut long = String::from(
        "From: News <news@example.com>\nTo: me@example.com\nSubject: The long letter\n\
         Date: Tue, 7 Oct 2025 09:00:00 +0100\n\n",
    );
    let mut n = 0;
    while long.chars().count() < 60_000 {
        if long.chars().count() > 55_000 && !long.contains("quokka") {
            long.push_str("Our correspondent met a quokka on the ferry.\n\n");
        }
        n += 1;
        long.push_str(&format!("Paragraph {n} of the newsletter, about little.\n"));
    }
    write(root, "Mail/long.eml", long.as_bytes());

    let index_dir = tempfile::tempdir().unwrap();
    let summary = index(root, index_dir.path());
    assert_eq!(summary["files"]["failed"], 0, "{summary}");
    assert_eq!(
        summary["units_by_kind"]["message"].as_u64().unwrap(),
        200 + 3,
        "{summary}"
    );
    let daemon = Daemon::start(index_dir.path());

    let reply = search(&daemon, "parcel-150");
    let top = &reply["results"][0]["metadata"];
    assert_eq!(top["file_path"], "Mail/Local Folders/Inbox", "{reply}");
    assert_eq!(top["kind"], "message");
    assert!(
        reply["results"][0]["contents"]
            .as_str()
            .unwrap_or_default()
            .contains("parcel-150")
            || top["snippet"]
                .as_str()
                .unwrap_or_default()
                .contains("parcel")
    );
    // Message 150: month index 5 (June), day 150 - 140 = 10.
    assert!(
        top["content_time"]
            .as_str()
            .unwrap()
            .starts_with("2024-06-10"),
        "{top}"
    );
    let line_start = top["line_start"].as_u64().unwrap();
    let text = mailbox(200);
    let first = text.lines().nth(line_start as usize - 1).unwrap();
    assert!(first.starts_with("From sender150@"), "{first}");

    // The attachment of message 12 is a file of its own inside the mailbox.
    let reply = search(&daemon, "lighthouse lantern pane");
    assert!(
        result_for(&reply, "Mail/Local Folders/Inbox#attachment/12-report.txt").is_some(),
        "{reply}"
    );

    // The long letter's text near its end is found, in a unit of its own.
    let reply = search(&daemon, "quokka ferry");
    let hit = result_for(&reply, "Mail/long.eml").expect("the long letter");
    assert_eq!(hit["metadata"]["kind"], "message", "{reply}");
    assert_eq!(hit["metadata"]["title"], "The long letter", "{reply}");
}
