//! The web page at `/`, in a real browser: headless Chromium (Debian's `chromium`) driven
//! through chromedriver against a real `dentate-searchd` serving a fixture profile (the
//! sample profile plus the speech and screen-recording fixtures of `tests/fixtures/media`).
//!
//! Screenshots go to `$DENTATE_SCREENSHOTS`, else `target/debug/browser-screenshots/`.
//! Without Chromium the tests print `skipped:` (a failure with `DENTATE_REQUIRE_BROWSER=1`,
//! which `scripts/test` sets after installing it).

mod webdriver;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::harness::{bin_dir, copy_tree, index_with, repo_root, Daemon};
use webdriver::Browser;

const WAIT: Duration = Duration::from_secs(30);
const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
/// 2024-03-14 and 2024-03-15, 10:00 UTC: the fixture week of 11 March 2024.
const MARCH_14: u64 = 1_710_410_400;
const MARCH_15: u64 = 1_710_496_800;
const QUERY: &str = "invoice overrun plumber";
const PDF: &str = "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf";
const VIDEO: &str = "Media/screen.mp4";
const AUDIO: &str = "Media/memo.mp3";

fn screenshot_dir() -> PathBuf {
    let dir = std::env::var_os("DENTATE_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| bin_dir().join("browser-screenshots"));
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    dir
}

fn set_mtime(path: &Path, unix: u64) {
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open for mtime");
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(unix))
        .expect("set mtime");
}

/// A CSS selector inside the result card of `path`.
fn in_card(path: &str, inner: &str) -> String {
    format!(".file[data-path={}] {inner}", json!(path))
}

/// [`in_card`] as a JS string literal.
fn card(path: &str, inner: &str) -> String {
    json!(in_card(path, inner)).to_string()
}

/// The start (seconds) of the best unit of `path` for `QUERY`, from the JSON API.
fn best_start(daemon: &Daemon, path: &str) -> Option<f64> {
    let body = json!({"query": QUERY, "top_k": 10, "units_per_file": 3}).to_string();
    let (status, reply) = daemon.post("/api/search", &body);
    assert_eq!(status, 200, "{reply}");
    let file = reply["files"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["file"]["path"] == path))
        .unwrap_or_else(|| panic!("{path} not among the results: {reply}"));
    file["units"][0]["metadata"]["start"].as_f64()
}

/// Waits until the thumbnail `selector` has rendered; its natural width.
fn rendered_width(browser: &Browser, selector: &str) -> u64 {
    let script = format!(
        "(() => {{ const i = document.querySelector({selector}); if (!i) return 0; \
         i.scrollIntoView({{block: 'center'}}); return i.complete ? i.naturalWidth : 0; }})()"
    );
    browser.wait_for(&script, WAIT).as_u64().unwrap_or(0)
}

/// Pixels of an image that are bright yellow (the fixture video's text from 4 s on).
fn yellow_pixels(browser: &Browser, selector: &str) -> u64 {
    let script = format!(
        "(() => {{ const i = document.querySelector({selector}); \
         const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight; \
         const g = c.getContext('2d'); g.drawImage(i, 0, 0); \
         const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0; \
         for (let k = 0; k < d.length; k += 4) if (d[k] > 180 && d[k + 1] > 180 && d[k + 2] < 90) n += 1; \
         return n; }})()"
    );
    browser.eval(&script).as_u64().unwrap_or(0)
}

#[test]
fn the_page_searches_shows_evidence_plays_audio_and_browses_time() {
    let Some(browser) = Browser::start("the page") else {
        return;
    };
    // Speech units (Whisper) and screen text (OCR) need the fetched models.
    let speech = crate::media::models_ready();
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    std::fs::create_dir_all(profile.path().join("Media")).unwrap();
    for (path, mtime) in [(AUDIO, MARCH_14), (VIDEO, MARCH_15)] {
        let name = path.trim_start_matches("Media/");
        let target = profile.path().join(path);
        std::fs::copy(repo_root().join("tests/fixtures/media").join(name), &target).unwrap();
        set_mtime(&target, mtime);
    }
    let index_dir = tempfile::tempdir().unwrap();
    let models = repo_root().join("models");
    let models = models.to_str().unwrap();
    index_with(profile.path(), index_dir.path(), &["--models", models]);
    let daemon = Daemon::start_with(index_dir.path(), &["--models", models]);
    let page = format!("http://{}/", daemon.http);
    let shots = screenshot_dir();

    browser.goto(&page);
    assert_eq!(browser.eval("document.title"), "Dentate");
    // The page's own policy: scripts from the origin only.
    let policy = browser.eval("fetch('/').then(r => r.headers.get('content-security-policy'))");
    let policy = policy.as_str().unwrap_or_default();
    assert!(policy.contains("script-src 'self'"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    // The index's state from Stats.
    browser.wait_for(
        "/\\d+ files · \\d+ units/.test(document.getElementById('stats').textContent)",
        WAIT,
    );

    // Type a query, wait for the results, grouped by file.
    browser.type_into(&browser.find("#q"), &format!("{QUERY}{ENTER}"));
    browser.wait_for("document.querySelectorAll('#results .file').length", WAIT);
    for path in [PDF, VIDEO] {
        let found = browser.eval(&format!(
            "!!document.querySelector({})",
            card(path, ".unit")
        ));
        assert_eq!(found, true, "{path} is not among the results");
    }

    // A PDF page and a video frame really rendered.
    let pdf_width = rendered_width(&browser, &card(PDF, ".thumb-pdf img"));
    assert!(pdf_width > 100, "PDF page thumbnail width {pdf_width}");
    let frame = card(VIDEO, ".unit .thumb-video img");
    let frame_width = rendered_width(&browser, &frame);
    assert!(
        frame_width > 100,
        "video frame thumbnail width {frame_width}"
    );
    // The frame is the one at the unit's start.
    let start = best_start(&daemon, VIDEO).unwrap_or(0.0);
    let second = browser.eval(&format!(
        "document.querySelector({}).dataset.second",
        card(VIDEO, ".unit .thumb-video")
    ));
    assert_eq!(
        second.as_str().and_then(|s| s.parse::<f64>().ok()),
        Some(start)
    );
    if speech {
        // "Projected overrun" (yellow) is on screen from 4 s on, and the query names it.
        assert!(start >= 4.0, "best screen unit starts at {start}");
        assert!(
            yellow_pixels(&browser, &frame) > 200,
            "the frame is not the one at {start} s"
        );
    }
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&shots.join("search.png"), false);
    browser.screenshot(&shots.join("search-full.png"), true);

    // An audio unit plays from its start.
    if speech {
        let start = best_start(&daemon, AUDIO).expect("speech unit with a time window");
        assert!(
            start > 5.0,
            "the plumber sentence starts at ~9 s, not {start}"
        );
        browser.click(&browser.find(&in_card(AUDIO, ".unit button.play")));
        let audio = card(AUDIO, "audio");
        let at = browser.wait_for(
            &format!(
                "(() => {{ const a = document.querySelector({audio}); \
                 return a && !a.paused && a.currentTime > 0 ? a.currentTime : 0; }})()"
            ),
            WAIT,
        );
        let at = at.as_f64().unwrap();
        assert!(
            at >= start - 0.3 && at < start + 2.0,
            "audio plays at {at} s, the unit starts at {start} s"
        );
        // The query and the results (a PDF page, the audio hit playing, a video frame)
        // on one screen for docs/http-api.md ("The web page").
        browser.viewport(1280, 1160, false);
        browser.eval("window.scrollTo(0, 0)");
        browser.screenshot(&shots.join("search-audio.png"), false);
        browser.viewport(1280, 800, false);
    } else {
        println!("skipped: audio playback check (media models missing; run scripts/fetch-models)");
    }

    // Explain: per-signal scores and ranks.
    browser.eval("window.scrollTo(0, 0)");
    browser.click(&browser.find("#explain"));
    let explain = browser.wait_for(
        "(() => { const t = document.querySelector('#results .explain'); \
         return t && t.offsetParent !== null ? t.textContent : ''; })()",
        WAIT,
    );
    assert!(explain.as_str().unwrap().contains("bm25.rank"), "{explain}");
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&shots.join("explain.png"), false);
    browser.click(&browser.find("#explain"));

    // A log's records gathered from across the file are shown by their lines, not as
    // the range from the first to the last.
    let gathered = browser.eval(
        "import('/ui/evidence.js').then(m => [ \
           m.locatorText(m.fromHit({metadata: {kind: 'span', line_start: 5, line_end: 58, \
             lines: [5, 6, 18, 31, 45, 58]}}), false), \
           m.locatorText(m.fromHit({metadata: {kind: 'span', line_start: 4, line_end: 20}}), false)])",
    );
    assert_eq!(
        gathered,
        json!(["lines 5, 6, 18, 31, 45 (+1 more)", "lines 4–20"])
    );

    // Keyboard: j moves to the next unit, Enter opens the whole file at the unit.
    browser.eval("document.querySelector('#results .unit').focus()");
    browser.keys("j");
    let second_unit = browser.eval(
        "document.activeElement === [...document.querySelectorAll('#results .unit')]\
         .filter(u => u.offsetParent !== null)[1]",
    );
    assert_eq!(second_unit, true, "j did not move to the next unit");
    let unit_id = browser.eval("document.activeElement.dataset.unitId");
    browser.keys(ENTER);
    let target = browser.wait_for(
        "document.querySelector('#viewer[open] .segment.target')?.dataset.unitId",
        WAIT,
    );
    assert_eq!(target, unit_id);
    browser.screenshot(&shots.join("viewer.png"), false);
    browser.keys(ESCAPE);
    browser.wait_for("!document.querySelector('#viewer').open", WAIT);

    // The timeline of the fixture week; a day lists its files.
    browser.click(&browser.find("#tab-timeline"));
    let when = browser.find("#when");
    browser.clear(&when);
    browser.type_into(&when, &format!("the week of 11 March 2024{ENTER}"));
    browser.wait_for(
        "document.querySelectorAll('#chart .bar').length === 7 && \
         document.getElementById('timeline-status').textContent.includes('2024-03-11')",
        WAIT,
    );
    browser.click(&browser.find("#chart .bar[data-date='2024-03-14']"));
    let listed = browser.wait_for(
        &format!(
            "!!document.querySelector('#day .day-file[data-path={}]')",
            json!(AUDIO)
        ),
        WAIT,
    );
    assert_eq!(listed, true);
    browser.screenshot(&shots.join("timeline-week.png"), false);
    // A month: 31 days in the chart; the busiest day listed.
    browser.clear(&when);
    browser.type_into(&when, &format!("March 2024{ENTER}"));
    browser.wait_for(
        "document.querySelectorAll('#chart .bar').length === 31",
        WAIT,
    );
    browser.click(&browser.find("#chart .bar[data-date='2024-03-17']"));
    browser.wait_for(
        "document.querySelectorAll('#day .day-file').length >= 2",
        WAIT,
    );
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&shots.join("timeline.png"), false);
    if speech {
        // Filtered by a query: only the day of the spoken sentence is left.
        browser.type_into(&browser.find("#tq"), &format!("plumber{ENTER}"));
        let days = browser.wait_for(
            "document.getElementById('timeline-status').textContent.includes('1 active day') && \
             [...document.querySelectorAll('#chart .bar:not(.empty)')].map(b => b.dataset.date).join()",
            WAIT,
        );
        assert_eq!(days, "2024-03-14");
    }

    // A phone-sized viewport: no sideways scrolling.
    browser.viewport(390, 844, true);
    browser.goto(&format!("{page}#search?q={}", QUERY.replace(' ', "+")));
    browser.wait_for("document.querySelectorAll('#results .file').length", WAIT);
    rendered_width(&browser, &card(PDF, ".thumb-pdf img"));
    browser.eval("window.scrollTo(0, 0)");
    let overflow = browser.eval("document.documentElement.scrollWidth - window.innerWidth");
    assert!(
        overflow.as_i64().unwrap_or(1) <= 0,
        "sideways overflow {overflow}"
    );
    browser.screenshot(&shots.join("phone.png"), false);

    // No errors, no Content-Security-Policy violations.
    let errors = browser.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    println!("screenshots in {}", shots.display());
}

/// Payloads that would run if anything from the index were parsed as markup; each sets
/// a global or the title.
const PAYLOAD_TEXT: &str =
    "zebra payload <script>window.__text_script = 1; document.title = 'pwned'</script> \
     <img src=x onerror=\"window.__text_img = 1; document.title = 'pwned'\"> \
     &lt;b&gt;escaped&lt;/b&gt; <b>bold</b> \" ' &amp;";
const GLOBALS: &[&str] = &[
    "__text_script",
    "__text_img",
    "__name_img",
    "__name_svg",
    "__csv_header",
    "__csv_cell",
    "__mail_from",
    "__mail_subject",
    "__query",
];

fn payload_profile(root: &Path) {
    let write = |path: &str, text: &str| {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, text).unwrap();
        set_mtime(&full, MARCH_14);
    };
    write("Notes/zebra.txt", PAYLOAD_TEXT);
    write(
        "Notes/<img src=x onerror=window.__name_img=1>.txt",
        "zebra payload in a file name",
    );
    write(
        "Notes/\"><svg onload=window.__name_svg=1>.md",
        "zebra payload in another file name",
    );
    write(
        "Sheets/zebra.csv",
        "animal,<img src=x onerror=window.__csv_header=1>\n\
         zebra payload,<script>window.__csv_cell=1</script>\n",
    );
    write(
        "Mail/zebra.eml",
        "From: \"<img src=x onerror=window.__mail_from=1>\" <a@example.com>\r\n\
         To: b@example.com\r\n\
         Subject: <script>window.__mail_subject=1</script> zebra payload\r\n\
         Date: Thu, 14 Mar 2024 10:00:00 +0000\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n\
         zebra payload <img src=x onerror=window.__mail_from=1>\r\n",
    );
    write(
        "Downloads/page.html",
        "<html><head><title>safe</title></head><body>zebra payload\
         <script>window.__html = 1; document.title = 'pwned'</script></body></html>",
    );
}

#[test]
fn nothing_from_the_index_runs_as_script() {
    let Some(browser) = Browser::start("payloads") else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    payload_profile(profile.path());
    let index_dir = tempfile::tempdir().unwrap();
    index_with(
        profile.path(),
        index_dir.path(),
        &["--no-embed", "--no-ocr", "--no-media"],
    );
    let daemon = Daemon::start_with(index_dir.path(), &["--no-dense"]);
    let page = format!("http://{}/", daemon.http);
    browser.goto(&page);

    // Search: every payload file is found and shown as text.
    browser.type_into(&browser.find("#q"), &format!("zebra payload{ENTER}"));
    browser.wait_for(
        "document.querySelectorAll('#results .file').length >= 5",
        WAIT,
    );
    browser.click(&browser.find("#explain"));
    let shown = browser.eval("document.getElementById('results').textContent");
    let shown = shown.as_str().unwrap();
    for literal in [
        "onerror=window.__name_img=1",
        "<svg onload=window.__name_svg=1>",
        "<script>window.__text_script",
        // Escaped text in a file stays as written; markup in a file stays text.
        "&lt;b&gt;escaped&lt;/b&gt; <b>bold</b>",
    ] {
        assert!(
            shown.contains(literal),
            "{literal:?} not shown as text in {shown}"
        );
    }
    // Every file opened whole.
    let files = browser.eval("document.querySelectorAll('#results .file-name').length");
    for i in 0..files.as_u64().unwrap() {
        browser.run(
            "document.querySelectorAll('#results .file-name')[arguments[0]].click()",
            &[json!(i)],
        );
        browser.wait_for(
            "document.querySelector('#viewer[open] .segment') !== null",
            WAIT,
        );
        browser.keys(ESCAPE);
        browser.wait_for("!document.querySelector('#viewer').open", WAIT);
    }
    // The query itself (echoed in the planner's notes) and the timeline.
    let q = browser.find("#q");
    browser.clear(&q);
    browser.type_into(
        &q,
        &format!("<img src=x onerror=window.__query=1> zebra{ENTER}"),
    );
    browser.wait_for(
        "document.getElementById('notes').textContent.includes('onerror')",
        WAIT,
    );
    browser.goto(&format!("{page}#timeline?when=March+2024&day=2024-03-14"));
    browser.wait_for(
        "document.querySelectorAll('#day .day-file').length >= 5",
        WAIT,
    );

    let ran: Value = browser.run(
        "return arguments[0].filter(name => window[name] !== undefined);",
        &[json!(GLOBALS)],
    );
    assert_eq!(ran, json!([]), "payloads ran");
    assert_eq!(browser.eval("document.title"), "Dentate");
    let injected = browser.eval(
        "document.querySelectorAll('[onerror], [onload], img[src=\"x\"], svg, iframe, object').length \
         + document.querySelectorAll('script').length - 1",
    );
    assert_eq!(injected, 0, "markup from the index became elements");
    let errors = browser.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");

    // An HTML file of the profile served raw runs no script on the page's origin.
    browser.goto(&format!("{page}api/serve_file/Downloads/page.html"));
    assert_eq!(browser.title(), "safe");
}
