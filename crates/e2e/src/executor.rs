//! Driving the page executor the way the service worker does: from an extension page of the test
//! build, `chrome.scripting.executeScript` puts `executor.js` into a fixture tab and
//! `chrome.tabs.sendMessage` carries real `panelot/content-v1` requests to it.

use std::path::Path;
use std::path::PathBuf;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Context;
use anyhow::bail;
use panelot_protocol::CONTENT_SCHEMA_HASH;
use panelot_protocol::content::CONTENT_PROTOCOL;
use panelot_protocol::content::ContentOutcome;
use panelot_protocol::content::ContentResponse;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::ExpectedTarget;
use panelot_protocol::content::SnapshotResult;
use panelot_protocol::decode_content_response;
use panelot_testkit::cdp::Page;
use serde_json::Value;
use serde_json::json;

use crate::Browser;
use crate::Flavor;

/// How long a call may take before the executor gives up (its `deadlineAtMs`).
const CALL_DEADLINE: Duration = Duration::from_secs(20);

/// A browser with the test build and an extension page to drive tabs from.
#[derive(Debug)]
pub struct ExecutorHarness {
    /// The browser.
    pub browser: Browser,
    /// The extension page that calls `chrome.*`.
    pub page: Page,
    next_request: u64,
    /// The patched copy of the extension the browser loaded, removed with the harness (after
    /// the browser, which is dropped first).
    _copy: Option<ExtensionCopy>,
}

/// Hosts the copy made by [`ExecutorHarness::launch_with_test_hosts`] grants.
const TEST_HOSTS: &[&str] = &["http://*.test/*"];

/// A copy of a built extension whose manifest grants more hosts; removed on drop.
#[derive(Debug)]
struct ExtensionCopy {
    dir: PathBuf,
}

static COPIES: AtomicU32 = AtomicU32::new(0);

impl ExtensionCopy {
    fn with_hosts(built: &Path, hosts: &[&str]) -> anyhow::Result<Self> {
        let dir = std::env::temp_dir().join(format!(
            "panelot-extension-{}-{}",
            std::process::id(),
            COPIES.fetch_add(1, Ordering::Relaxed)
        ));
        let copy = ExtensionCopy { dir };
        copy_dir(built, &copy.dir)?;
        let path = copy.dir.join("manifest.json");
        let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let granted = manifest["host_permissions"]
            .as_array_mut()
            .context("the manifest has no host_permissions list")?;
        granted.extend(hosts.iter().map(|host| json!(host)));
        std::fs::write(&path, serde_json::to_string_pretty(&manifest)?)?;
        Ok(copy)
    }
}

impl Drop for ExtensionCopy {
    fn drop(&mut self) {
        // A copy left behind in the temp dir is harmless.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

/// A tab opened for a fixture page (in a window of its own, so it is visible and its timers run
/// at full speed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tab(pub i64);

impl ExecutorHarness {
    /// Launches Chromium with the test build and opens an extension page.
    pub fn launch() -> anyhow::Result<Self> {
        let browser = Browser::launch_flavor(Flavor::Test)?;
        Self::with_browser(browser, None)
    }

    /// Launches Chromium with the test build where every `*.test` name is `127.0.0.1`, so that
    /// the fixture site also answers at `http://<name>.test:<port>`: an origin of its own per
    /// name, and no secure context (unlike `127.0.0.1` and `localhost`). The extension may read
    /// those pages: it is loaded from a copy of the test build whose manifest grants
    /// `http://*.test/*` (granting an optional host at run time takes a prompt).
    pub fn launch_with_test_hosts() -> anyhow::Result<Self> {
        let copy = ExtensionCopy::with_hosts(&crate::extension_dir(Flavor::Test)?, TEST_HOSTS)?;
        let rules = "--host-resolver-rules=MAP *.test 127.0.0.1".to_owned();
        let browser = Browser::launch_from(copy.dir.clone(), vec![rules])?;
        Self::with_browser(browser, Some(copy))
    }

    fn with_browser(mut browser: Browser, copy: Option<ExtensionCopy>) -> anyhow::Result<Self> {
        let page = browser.open_extension_page("options.html")?;
        Ok(ExecutorHarness { browser, page, next_request: 1, _copy: copy })
    }

    /// Evaluates script in the extension page.
    pub fn eval(&mut self, script: &str) -> anyhow::Result<Value> {
        let log = self.browser.log_tail();
        self.browser
            .cdp
            .evaluate(&self.page, script)
            .with_context(|| format!("Chromium log:\n{log}"))
    }

    /// Opens `url` in a new window and waits until it has loaded.
    pub fn open_tab(&mut self, url: &str) -> anyhow::Result<Tab> {
        let script = format!(
            r#"(async () => {{
                const win = await chrome.windows.create({{ url: {url}, focused: true }});
                const id = win.tabs[0].id;
                for (let i = 0; i < 600; i++) {{
                    const tab = await chrome.tabs.get(id);
                    if (tab.status === "complete" && tab.url === {url}) return id;
                    await new Promise((r) => setTimeout(r, 25));
                }}
                throw new Error("the tab did not load");
            }})()"#,
            url = json!(url),
        );
        let id = self.eval(&script)?.as_i64().context("tab id")?;
        Ok(Tab(id))
    }

    /// Closes a tab (its window, when it was the window's only one).
    pub fn close_tab(&mut self, tab: Tab) -> anyhow::Result<()> {
        self.eval(&format!("chrome.tabs.remove({}).then(() => null)", tab.0))?;
        Ok(())
    }

    /// Opens any address in a new window and waits until it has loaded, wherever it redirected
    /// to (for pages off the fixture site).
    pub fn open_url(&mut self, url: &str) -> anyhow::Result<Tab> {
        let script = format!(
            r#"(async () => {{
                const win = await chrome.windows.create({{ url: {url}, focused: true }});
                const id = win.tabs[0].id;
                for (let i = 0; i < 1200; i++) {{
                    const tab = await chrome.tabs.get(id);
                    if (tab.status === "complete" && tab.url && tab.url !== "about:blank") return id;
                    await new Promise((r) => setTimeout(r, 25));
                }}
                throw new Error("the tab did not load in 30 s");
            }})()"#,
            url = json!(url),
        );
        let id = self.eval(&script)?.as_i64().context("tab id")?;
        Ok(Tab(id))
    }

    /// Takes a snapshot within `budget` tokens (the default when `None`) and returns it with how
    /// long it took.
    pub fn timed_snapshot(
        &mut self,
        tab: Tab,
        budget: Option<u32>,
    ) -> anyhow::Result<(SnapshotResult, Timing)> {
        let call = json!({"tool": "read_page", "params": {"maxTokens": budget, "scopeRef": null}});
        match self.timed_call(tab, call)? {
            (ContentOutcome::Ok { result: ExecutorResult::Snapshot(snap) }, ms) => Ok((snap, ms)),
            (other, _) => bail!("the snapshot failed: {other:?}"),
        }
    }

    /// How many elements the tab's document has (shadow roots and frames not counted).
    pub fn element_count(&mut self, tab: Tab) -> anyhow::Result<u64> {
        let n = self.eval_in_tab(tab, "return document.getElementsByTagName('*').length;")?;
        n.as_u64().context("element count")
    }

    /// Navigates the tab and waits until the new page has loaded.
    pub fn navigate(&mut self, tab: Tab, url: &str) -> anyhow::Result<()> {
        let script = format!(
            r#"(async () => {{
                await chrome.tabs.update({id}, {{ url: {url} }});
                for (let i = 0; i < 600; i++) {{
                    const tab = await chrome.tabs.get({id});
                    if (tab.status === "complete" && tab.url === {url}) return true;
                    await new Promise((r) => setTimeout(r, 25));
                }}
                throw new Error("the tab did not load");
            }})()"#,
            id = tab.0,
            url = json!(url),
        );
        self.eval(&script)?;
        Ok(())
    }

    /// Injects the executor (idempotent: a second injection keeps the first instance).
    pub fn inject(&mut self, tab: Tab) -> anyhow::Result<()> {
        let script = format!(
            r#"chrome.scripting.executeScript({{ target: {{ tabId: {id} }}, files: ["executor.js"] }}).then(() => true)"#,
            id = tab.0
        );
        self.eval(&script)?;
        Ok(())
    }

    /// Evaluates script in the tab's page (main world), through `chrome.scripting`.
    pub fn eval_in_tab(&mut self, tab: Tab, body: &str) -> anyhow::Result<Value> {
        let script = format!(
            r#"chrome.scripting.executeScript({{ target: {{ tabId: {id} }}, world: "MAIN", func: () => {{ {body} }} }}).then((r) => r[0].result ?? null)"#,
            id = tab.0
        );
        self.eval(&script)
    }

    /// Sends a raw content-protocol message and returns the raw answer.
    pub fn send_raw(&mut self, tab: Tab, message: &Value) -> anyhow::Result<Value> {
        let script = format!("chrome.tabs.sendMessage({}, {message})", tab.0);
        self.eval(&script)
    }

    /// Runs one executor call and also returns how long it took.
    pub fn timed_call(
        &mut self,
        tab: Tab,
        call: Value,
    ) -> anyhow::Result<(ContentOutcome, Timing)> {
        let (request_id, message) = self.request(json!({ "kind": "execute", "call": call }));
        let script = format!(
            "(async () => {{ const t = performance.now(); const r = await chrome.tabs.sendMessage({}, {message}); return [r, performance.now() - t]; }})()",
            tab.0
        );
        let raw = self.eval(&script)?;
        let ms = raw[1].as_f64().context("no time")?;
        let response: ContentResponse = decode_content_response(raw[0].clone())
            .with_context(|| format!("executor answered {}", raw[0]))?;
        if response.request_id.as_str() != request_id {
            bail!("answer to {} for request {request_id}", response.request_id.as_str());
        }
        Ok((response.outcome, Timing { round_trip_ms: ms, handled_ms: response.handled_ms }))
    }

    /// A request envelope for `op`.
    pub fn request(&mut self, op: Value) -> (String, Value) {
        let request_id = format!("e2e-{}", self.next_request);
        self.next_request += 1;
        let deadline_at_ms = now_ms() + CALL_DEADLINE.as_millis() as u64;
        let message = json!({
            "protocol": CONTENT_PROTOCOL,
            "schemaHash": CONTENT_SCHEMA_HASH,
            "requestId": request_id,
            "deadlineAtMs": deadline_at_ms,
            "refDocumentId": null,
            "expected": null,
            "op": op,
        });
        (request_id, message)
    }

    /// Runs one executor call (`{"tool": …, "params": …}`) and returns the decoded outcome.
    pub fn call(&mut self, tab: Tab, call: Value) -> anyhow::Result<ContentOutcome> {
        self.call_in_document(tab, call, None)
    }

    /// Runs one executor call whose refs were issued in `ref_document_id`, as the engine sends
    /// them.
    pub fn call_in_document(
        &mut self,
        tab: Tab,
        call: Value,
        ref_document_id: Option<&str>,
    ) -> anyhow::Result<ContentOutcome> {
        self.call_judged(tab, call, ref_document_id, None)
    }

    /// Runs one executor call as the engine sends a judged one: with the document its refs
    /// came from and the document and origin it was judged for (`expected`).
    pub fn call_judged(
        &mut self,
        tab: Tab,
        call: Value,
        ref_document_id: Option<&str>,
        expected: Option<&ExpectedTarget>,
    ) -> anyhow::Result<ContentOutcome> {
        let (request_id, mut message) = self.request(json!({ "kind": "execute", "call": call }));
        message["refDocumentId"] = json!(ref_document_id);
        message["expected"] = serde_json::to_value(expected)?;
        let raw = self.send_raw(tab, &message)?;
        let response: ContentResponse = decode_content_response(raw.clone())
            .with_context(|| format!("executor answered {raw}"))?;
        if response.request_id.as_str() != request_id {
            bail!("answer to {} for request {request_id}", response.request_id.as_str());
        }
        Ok(response.outcome)
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Interactive elements accounted for in a budgeted snapshot: refs listed as elements plus the
/// counts inside folded lines (`[folded N lines, K interactive]`; a ref right after the marker
/// names the folded region, not an element).
pub fn accounted_interactive(text: &str) -> usize {
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        match line.find("[folded ") {
            Some(at) => {
                let inside: usize = line[at..]
                    .split(", ")
                    .nth(1)
                    .and_then(|s| s.split(' ').next())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                n += inside + refs_in(&line[..at]).len();
            }
            None => n += refs_in(line).len(),
        }
    }
    n
}

/// The refs (`e12`) in a text, in order.
pub fn refs_in(text: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[e") {
        let tail = &rest[start + 2..];
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(']') {
            refs.push(format!("e{}", &tail[..digits]));
        }
        rest = tail;
    }
    refs
}

/// How long an executor call took.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// The message round trip, measured in the extension page (without the DevTools hop).
    pub round_trip_ms: f64,
    /// The executor's own time in the page, as it reports it.
    pub handled_ms: Option<f64>,
}

/// A page of the snapshot corpus: small task pages and large ones.
#[derive(Debug, Clone)]
pub struct CorpusPage {
    /// Short name, also the path on the fixture site (`/corpus/<name>.html`).
    pub name: &'static str,
    /// The HTML.
    pub html: String,
    /// Interactive elements a snapshot must account for (listed or counted in folded lines).
    pub interactive: usize,
    /// A small task page (else a large one).
    pub small: bool,
}

/// The snapshot corpus: a login form, search results, a product page, a settings page with
/// toggles, an inbox, and large pages (a 40,000-element catalog and a 50,000-element
/// documentation page).
pub fn corpus() -> Vec<CorpusPage> {
    vec![
        small("login", LOGIN, 14),
        small("search", &search_page(), 31),
        small("product", PRODUCT, 20),
        small("settings", SETTINGS, 17),
        small("inbox", &inbox_page(), 45),
        {
            let (html, interactive) = catalog_page(10_000);
            CorpusPage { name: "catalog-40k", html, interactive, small: false }
        },
        {
            let (html, interactive) = docs_page(450);
            CorpusPage { name: "docs-50k", html, interactive, small: false }
        },
    ]
}

fn small(name: &'static str, html: &str, interactive: usize) -> CorpusPage {
    CorpusPage { name, html: html.replace("STYLE", STYLE), interactive, small: true }
}

const STYLE: &str = "<style>body{font-family:sans-serif;margin:16px}.row{display:flex;gap:8px;align-items:center}.link{color:#06c;cursor:pointer}.muted{color:#666}.card{border:1px solid #ddd;padding:8px;margin:8px 0}.menu{display:none}</style>";

const LOGIN: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Acme</title>STYLE</head><body>
<header class="row"><a href="/">Acme</a><nav aria-label="Top"><a href="/pricing">Pricing</a> <a href="/docs">Docs</a></nav></header>
<main><h1>Sign in to Acme</h1>
<form action="/session" method="post">
<p><label for="email">Email address</label><br><input id="email" type="email" name="email" autocomplete="username" required></p>
<p><label for="password">Password</label><br><input id="password" type="password" name="password" required></p>
<div class="row"><label><input type="checkbox" name="remember"> Remember me</label><a href="/forgot">Forgot password?</a></div>
<p><button type="submit">Sign in</button></p>
</form>
<p>New to Acme? <a href="/signup">Create an account</a></p>
<div class="row"><button type="button">Sign in with Google</button><button type="button">Sign in with GitHub</button></div>
</main>
<footer class="muted"><a href="/terms">Terms</a> · <a href="/privacy">Privacy</a> · <span class="link">Contact us</span></footer>
</body></html>"#;

fn search_page() -> String {
    // 3 header links, a search box and its button, 2 selects, 3 checkboxes, 10 results (a title
    // link each, and a "Similar" button on every other one: the rest are in hidden menus), 5 pages
    // and Next: 5 + 5 + 15 + 6 = 31.
    let mut html = String::from(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rust async runtime - Search</title>STYLE</head><body>
<header class="row"><a href="/">Searchly</a><form role="search" class="row"><input type="search" name="q" value="rust async runtime" aria-label="Search"><button>Search</button></form><a href="/account">Account</a><a href="/help">Help</a></header>
<div class="row"><select aria-label="Time"><option>Any time</option><option>Past week</option></select><select aria-label="Region"><option>All regions</option><option>Europe</option></select>
<label><input type="checkbox"> Verbatim</label><label><input type="checkbox"> Safe search</label><label><input type="checkbox" checked> Include forums</label></div>
<main><p class="muted">About 1,240,000 results (0.42 seconds)</p><ol>"#,
    );
    for i in 0..10 {
        html.push_str(&format!(
            r#"<li class="card"><a href="https://example.org/result/{i}"><h3>Result {i}: building an async runtime in Rust</h3></a><div class="muted">https://example.org › result › {i}</div><p>Result {i} explains executors, wakers and reactors, with benchmarks against tokio and smol and a worked example.</p>{menu}</li>"#,
            menu = if i % 2 == 0 {
                r#"<button type="button">Similar</button>"#
            } else {
                r#"<div class="menu"><button type="button">Similar</button></div>"#
            }
        ));
    }
    html.push_str(r#"</ol><nav aria-label="Pages" class="row"><a href="?p=1">1</a><a href="?p=2">2</a><a href="?p=3">3</a><a href="?p=4">4</a><a href="?p=5">5</a><a href="?p=2">Next</a></nav></main></body></html>"#);
    html.replace("STYLE", STYLE)
}

const PRODUCT: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail Runner 3 · Shoes</title>STYLE</head><body>
<header class="row"><a href="/">Shoply</a><input type="search" placeholder="Search products"><a href="/cart">Cart (2)</a></header>
<nav aria-label="Breadcrumb"><a href="/men">Men</a> › <a href="/men/shoes">Shoes</a> › Trail Runner 3</nav>
<main><div class="row"><img src="data:," alt="Trail Runner 3, side view" width="200" height="150"><div>
<h1>Trail Runner 3</h1><p><strong>$129.00</strong> <span class="muted">4.6 out of 5 (312 reviews)</span></p>
<label for="size">Size</label> <select id="size"><option>Select a size</option><option>42</option><option>43</option><option>44</option></select>
<label for="qty">Quantity</label> <input id="qty" type="number" value="1" min="1" max="9">
<div class="row"><button>Add to cart</button><button aria-label="Add to wishlist">♡</button></div>
<p>Free returns within 30 days. <a href="/shipping">Shipping details</a></p></div></div>
<div role="tablist"><button role="tab" aria-selected="true">Description</button><button role="tab" aria-selected="false">Specifications</button><button role="tab" aria-selected="false">Reviews</button></div>
<div role="tabpanel"><p>A light trail shoe with a grippy outsole, a rock plate and a roomy toe box for long days out.</p>
<ul><li>Weight: 280 g</li><li>Drop: 6 mm</li><li>Upper: recycled mesh</li></ul></div>
<section aria-label="Reviews"><h2>Reviews</h2>
<article class="card"><h3>Great grip</h3><p>Held on wet rock better than my old pair.</p><button>Helpful</button> <button>Report</button></article>
<article class="card"><h3>Runs small</h3><p>Order half a size up.</p><button>Helpful</button> <button>Report</button></article>
<a href="/reviews">See all 312 reviews</a></section></main>
<footer class="muted"><a href="/about">About</a> · <a href="/contact">Contact</a></footer>
</body></html>"#;

const SETTINGS: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Settings</title>STYLE<style>.switch{display:inline-block;width:32px;height:18px;border-radius:9px;background:#ccc;cursor:pointer}.switch[aria-checked=true]{background:#2a2}</style></head><body>
<div class="row" style="align-items:flex-start"><nav aria-label="Settings"><ul><li><a href="/settings/profile">Profile</a></li><li><a href="/settings/account" aria-current="page">Account</a></li><li><a href="/settings/notifications">Notifications</a></li><li><a href="/settings/security">Security</a></li></ul></nav>
<main><h1>Account settings</h1>
<form aria-label="Account">
<p><label for="name">Display name</label> <input id="name" value="Ada"></p>
<p><label for="lang">Language</label> <select id="lang"><option>English</option><option selected>Deutsch</option></select></p>
<fieldset><legend>Theme</legend><label><input type="radio" name="theme" checked> Light</label> <label><input type="radio" name="theme"> Dark</label> <label><input type="radio" name="theme"> System</label></fieldset>
<h2>Notifications</h2>
<div class="row"><span id="l1">Email me about new replies</span><span class="switch" role="switch" tabindex="0" aria-checked="true" aria-labelledby="l1"></span></div>
<div class="row"><span id="l2">Weekly digest</span><span class="switch" role="switch" tabindex="0" aria-checked="false" aria-labelledby="l2"></span></div>
<div class="row"><span id="l3">Product news</span><span class="switch" role="switch" tabindex="0" aria-checked="false" aria-labelledby="l3"></span></div>
<details><summary>Advanced</summary><p><label><input type="checkbox"> Developer mode</label></p></details>
<div class="row"><button type="submit">Save changes</button><button type="button">Cancel</button><span class="link">Reset to defaults</span></div>
</form>
<h2>Danger zone</h2><button type="button" aria-describedby="warn">Delete account</button><p id="warn" class="muted">This cannot be undone.</p>
</main></div></body></html>"#;

fn inbox_page() -> String {
    // Compose, search and refresh, 4 folder links, 12 rows (the row, clickable, with the sender
    // and subject under it, and a checkbox and a star button in it) and 2 pager buttons:
    // 3 + 4 + 36 + 2 = 45.
    let mut html = String::from(
        r##"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inbox (3) · Mail</title>STYLE<style>.msg{cursor:pointer;display:flex;gap:8px;padding:4px}.msg.unread{font-weight:bold}</style></head><body>
<div class="row"><button>Compose</button><input type="search" aria-label="Search mail"><button aria-label="Refresh">⟳</button></div>
<nav aria-label="Folders"><a href="#inbox">Inbox</a> <a href="#starred">Starred</a> <a href="#sent">Sent</a> <a href="#drafts">Drafts</a></nav>
<main><div role="list">"##,
    );
    for i in 0..12 {
        html.push_str(&format!(
            r#"<div role="listitem" class="msg{unread}"><input type="checkbox" aria-label="Select message {i}"><button aria-label="Star message {i}">☆</button><span>Sender {i}</span><span>Subject line of message {i}</span><span class="muted">10:{i:02}</span></div>"#,
            unread = if i < 3 { " unread" } else { "" }
        ));
    }
    html.push_str(r#"</div><div class="row"><button aria-label="Older">‹</button><button aria-label="Newer">›</button></div></main></body></html>"#);
    html.replace("STYLE", STYLE)
}

/// A catalog of `n_items` rows (a link, text and a button each) with navigation, a form, long
/// text and a footer: about 4 elements a row. Returns the page and its interactive elements.
pub fn catalog_page(n_items: usize) -> (String, usize) {
    use std::fmt::Write as _;
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Big catalog</title></head><body>",
    );
    let mut interactive = 0;
    html.push_str("<nav aria-label=\"Main\">");
    for i in 0..40 {
        let _ = write!(html, "<a href=\"/section/{i}\">Section {i}</a> ");
        interactive += 1;
    }
    html.push_str("</nav><h1>Catalog</h1><form aria-label=\"Filters\">");
    for i in 0..12 {
        let _ = write!(html, "<label>Filter {i} <input name=\"f{i}\"></label>");
        interactive += 1;
    }
    html.push_str("<button>Apply</button></form><main><ul>");
    interactive += 1;
    for i in 0..n_items {
        let _ = write!(
            html,
            "<li><a href=\"/item/{i}\">Item number {i}</a> <span>a plain description of item {i} with several words in it</span> <button>Add {i}</button></li>"
        );
        interactive += 2;
    }
    html.push_str("</ul>");
    for i in 0..200 {
        let _ = write!(
            html,
            "<p>Paragraph {i}: long running prose about the catalog, its history and the many things in it, repeated to take space.</p>"
        );
    }
    html.push_str("</main><footer><ul>");
    for i in 0..60 {
        let _ = write!(html, "<li><a href=\"/about/{i}\">Footer link {i}</a></li>");
        interactive += 1;
    }
    html.push_str("</ul></footer></body></html>");
    (html, interactive)
}

/// A documentation site of `sections` sections (about 100 elements each): a header with search,
/// a sidebar of nested links, and an article of headings, prose with inline code and links,
/// highlighted code blocks with copy buttons, collapsed notes and tables. Returns the page and
/// its interactive elements.
pub fn docs_page(sections: usize) -> (String, usize) {
    use std::fmt::Write as _;
    let mut html = String::from(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reference · Docs</title><style>body{margin:0;font-family:sans-serif}.layout{display:flex}.side{width:260px;flex:none}.kw{color:#a0a}.str{color:#080}.anchor{cursor:pointer;color:#999}pre{background:#f6f6f6;padding:8px}</style></head><body>"#,
    );
    html.push_str(r#"<header class="layout"><a href="/">Docs home</a> <input type="search" placeholder="Search the docs"> <button aria-label="Toggle theme">◐</button> <a href="/github">GitHub</a></header><div class="layout"><nav class="side" aria-label="Sidebar"><ul>"#);
    let mut interactive = 4;
    for s in 0..sections {
        let _ = write!(html, r##"<li><a href="#s{s}">Section {s}</a><ul>"##);
        interactive += 1;
        for k in 0..4 {
            let _ = write!(html, r##"<li><a href="#s{s}-{k}">Topic {s}.{k}</a></li>"##);
            interactive += 1;
        }
        html.push_str("</ul></li>");
    }
    html.push_str("</ul></nav><main><h1>Reference</h1>");
    for s in 0..sections {
        let next = (s + 1) % sections;
        let _ = write!(
            html,
            r#"<section id="s{s}"><h2>Section {s} <span class="anchor" title="Link to this section">#</span></h2>"#
        );
        interactive += 1;
        for k in 0..4 {
            let _ = write!(
                html,
                r##"<h3 id="s{s}-{k}">Topic {s}.{k}</h3><p>The <code>option_{k}</code> setting controls how <a href="#s{next}">section {next}</a> behaves. <em>Note</em> that values are <strong>case sensitive</strong> and apply per project; see also <code>option_{k}_default</code>.</p>"##
            );
            interactive += 1;
            html.push_str("<pre><code>");
            for j in 0..3 {
                let _ = writeln!(
                    html,
                    r#"<span class="kw">let</span> <span>value_{j}</span> = <span class="str">"{s}.{k}.{j}"</span>;"#
                );
            }
            html.push_str("</code></pre><button>Copy</button>");
            interactive += 1;
        }
        let _ = write!(
            html,
            "<details><summary>Notes on section {s}</summary><p>Rarely needed details.</p></details>"
        );
        interactive += 1;
        html.push_str("<table><tr><th>Name</th><th>Type</th><th>Default</th></tr>");
        for j in 0..3 {
            let _ = write!(
                html,
                "<tr><td><code>field_{j}</code></td><td>string</td><td><code>\"\"</code></td></tr>"
            );
        }
        html.push_str("</table></section>");
    }
    html.push_str(r#"</main></div><footer><a href="/about">About</a> <a href="/license">License</a></footer></body></html>"#);
    interactive += 2;
    (html, interactive)
}
