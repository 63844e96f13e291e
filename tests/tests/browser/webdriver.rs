//! A small W3C WebDriver client: chromedriver driving Debian's headless Chromium, plain
//! JSON over HTTP with the `eval` crate's client (no WebDriver crate).
//!
//! `Browser::start` finds `chromium` and `chromedriver` (or `$DENTATE_CHROMIUM` and
//! `$DENTATE_CHROMEDRIVER`); when they are missing it returns `None` after printing
//! `skipped:`, unless `DENTATE_REQUIRE_BROWSER=1` (set by `scripts/test`) makes that a
//! failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use eval::HttpClient;
use serde_json::{json, Value};

/// The W3C name of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A WebDriver session in headless Chromium; the session and chromedriver end on drop.
pub struct Browser {
    driver: Child,
    base: String,
    client: HttpClient,
    /// Chromium's profile folder.
    profile: tempfile::TempDir,
}

/// An element of the page.
#[derive(Debug, Clone)]
pub struct Element(String);

fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

fn tool(env: &str, names: &[&str], extra: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(env) {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    on_path(names).or_else(|| extra.iter().map(PathBuf::from).find(|p| p.is_file()))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session with a 1280×800 viewport, or
    /// `None` (after printing `skipped:`) when they are not installed and not required.
    pub fn start(test: &str) -> Option<Browser> {
        let chromium = tool(
            "DENTATE_CHROMIUM",
            &["chromium", "chromium-browser", "google-chrome"],
            &[],
        );
        let driver = tool(
            "DENTATE_CHROMEDRIVER",
            &["chromedriver"],
            &["/usr/lib/chromium/chromedriver"],
        );
        let (Some(chromium), Some(driver)) = (chromium, driver) else {
            let message = "Chromium and chromedriver are not installed \
                           (apt-get install chromium chromium-driver; scripts/test does)";
            if std::env::var("DENTATE_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
                panic!("{message}, and DENTATE_REQUIRE_BROWSER=1");
            }
            println!("skipped: {test}: {message}");
            return None;
        };
        let port = free_port();
        let child = Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
        let profile = tempfile::tempdir().expect("browser profile dir");
        let mut browser = Browser {
            driver: child,
            base: format!("http://127.0.0.1:{port}"),
            client: HttpClient::new(Some(Duration::from_secs(5)), Some(Duration::from_secs(120))),
            profile,
        };
        browser.wait_ready();
        browser.new_session(&chromium);
        Some(browser)
    }

    fn wait_ready(&self) {
        let start = Instant::now();
        loop {
            if let Ok(reply) = self.client.get(&format!("{}/status", self.base)) {
                if reply.json().is_ok_and(|v| v["value"]["ready"] == true) {
                    return;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not get ready"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn new_session(&mut self, chromium: &Path) {
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--mute-audio".into(),
            "--autoplay-policy=no-user-gesture-required".into(),
            "--window-size=1280,800".into(),
            format!("--user-data-dir={}", self.profile.path().display()),
        ];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let reply = self.raw("POST", "/session", Some(capabilities));
        let id = reply["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {reply}"));
        self.base = format!("{}/session/{id}", self.base);
        self.viewport(1280, 800, false);
    }

    /// One WebDriver command; its `value`. A WebDriver error fails the test.
    fn raw(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let body = body.map(|b| b.to_string());
        let reply = self
            .client
            .request(method, &url, body.as_deref().map(str::as_bytes))
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e:?}"));
        let value: Value = reply
            .json()
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e:?}"));
        assert!(
            reply.status == 200,
            "WebDriver {method} {path} answered {}: {value}",
            reply.status
        );
        value.get("value").cloned().unwrap_or(value)
    }

    /// The viewport's size (CSS pixels); `mobile` emulates a phone (meta viewport).
    pub fn viewport(&self, width: u32, height: u32, mobile: bool) {
        self.raw(
            "POST",
            "/goog/cdp/execute",
            Some(
                json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                    "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
                }}),
            ),
        );
    }

    pub fn goto(&self, url: &str) {
        self.raw("POST", "/url", Some(json!({ "url": url })));
    }

    /// The title of the current document (read by the driver, not by page script).
    pub fn title(&self) -> String {
        self.raw("GET", "/title", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Runs `script` (a function body; `arguments` are `args`) and returns its result.
    pub fn run(&self, script: &str, args: &[Value]) -> Value {
        self.raw(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// An expression's value.
    pub fn eval(&self, expression: &str) -> Value {
        self.run(&format!("return ({expression});"), &[])
    }

    /// Polls `expression` until it is truthy (not false, null, 0 or ""); its value.
    pub fn wait_for(&self, expression: &str, timeout: Duration) -> Value {
        let start = Instant::now();
        loop {
            let value = self.eval(expression);
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return value;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out after {timeout:?} waiting for {expression}; page status: {}",
                self.eval(
                    "[document.getElementById('search-status')?.textContent, \
                     document.getElementById('timeline-status')?.textContent].join(' | ')"
                )
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn find(&self, css: &str) -> Element {
        let value = self.raw(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        Element(
            value[ELEMENT]
                .as_str()
                .unwrap_or_else(|| panic!("no element {css}: {value}"))
                .to_string(),
        )
    }

    /// Scrolls the element into view and clicks it like a person.
    pub fn click(&self, element: &Element) {
        self.run(
            "arguments[0].scrollIntoView({block: 'center'});",
            &[element.reference()],
        );
        self.raw(
            "POST",
            &format!("/element/{}/click", element.0),
            Some(json!({})),
        );
    }

    /// Types `text` into the element (WebDriver key codes: `\u{E007}` is Enter).
    pub fn type_into(&self, element: &Element, text: &str) {
        self.raw(
            "POST",
            &format!("/element/{}/value", element.0),
            Some(json!({ "text": text })),
        );
    }

    pub fn clear(&self, element: &Element) {
        self.raw(
            "POST",
            &format!("/element/{}/clear", element.0),
            Some(json!({})),
        );
    }

    /// Sends keys to whatever has the focus.
    pub fn keys(&self, text: &str) {
        let actions: Vec<Value> = text
            .chars()
            .flat_map(|c| {
                let key = c.to_string();
                [
                    json!({"type": "keyDown", "value": key}),
                    json!({"type": "keyUp", "value": key}),
                ]
            })
            .collect();
        self.raw(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        );
    }

    /// Saves a PNG of the viewport (`full`: the whole page) to `path`.
    pub fn screenshot(&self, path: &Path, full: bool) {
        let b64 = if full {
            let size = self.eval(
                "[document.documentElement.clientWidth, document.documentElement.scrollHeight]",
            );
            self.raw(
                "POST",
                "/goog/cdp/execute",
                Some(json!({"cmd": "Page.captureScreenshot", "params": {
                    "captureBeyondViewport": true,
                    "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1},
                }})),
            )["data"]
                .clone()
        } else {
            self.raw("GET", "/screenshot", None)
        };
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().expect("screenshot data"))
            .expect("screenshot base64");
        assert!(png.starts_with(b"\x89PNG"), "screenshot is not a PNG");
        std::fs::write(path, png).expect("write screenshot");
    }

    /// The console's errors since the last call (CSP violations are among them).
    pub fn console_errors(&self) -> Vec<String> {
        let entries = self.raw("POST", "/se/log", Some(json!({"type": "browser"})));
        entries
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .filter(|e| e["level"] == "SEVERE")
                    .map(|e| e["message"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Element {
    /// The element as a script argument.
    pub fn reference(&self) -> Value {
        json!({ ELEMENT: self.0 })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.client.request("DELETE", &self.base, None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
