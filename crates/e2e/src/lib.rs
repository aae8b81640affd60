//! The end-to-end harness: headless Chromium with the built extension (`cargo xtask build`),
//! reached over CDP. Tests live in `tests/suite/`.
//!
//! [`Browser`] launches Chromium with a flavor of the extension on a fresh profile; the modules
//! build on it:
//!
//! * [`side_panel`]: the real side panel of a window, with pages under made-up origins, a
//!   driver page that configures the engine, turns typed into the composer and approval cards
//!   answered by mouse clicks.
//! * [`scripted_model`]: a scripted model behind the mock provider whose steps read the request
//!   they answer (the latest snapshot, its element refs).
//! * [`adversarial`]: adversarial scenarios as a table of rows, each played through the side
//!   panel under every permission mode and checked against the verdict and effect expected.
//! * [`conversation`]: one conversation with the engine over a real Port from an extension page,
//!   each step sent once the previous one's awaited event arrived.
//! * [`scenario`]: a browser with the test build set up for the mock provider, a fixture tab and
//!   a thread whose first turn is done, for the gateway and debugger suites.
//! * [`executor`]: the page executor driven the way the service worker does, with real
//!   content-protocol requests to a fixture tab.
//! * [`ui`]: the UI pages driven as a person does (CDP keyboard input, reading the DOM, the side
//!   panel of a window, screenshots in light and dark).

pub mod adversarial;
pub mod conversation;
pub mod executor;
pub mod scenario;
pub mod scripted_model;
pub mod side_panel;
pub mod ui;

use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;
use panelot_testkit::cdp::Cdp;
use panelot_testkit::cdp::Page;
use panelot_testkit::chromium::Chromium;
use panelot_testkit::chromium::Display;
use panelot_testkit::chromium::LaunchOptions;
use panelot_testkit::chromium::find_chromium;
use panelot_testkit::extension_id;
use serde_json::Value;

/// How long a fresh install may take to open its first-run tab.
const FIRST_RUN_DEADLINE: std::time::Duration = std::time::Duration::from_secs(15);

/// A browser with the extension loaded.
#[derive(Debug)]
pub struct Browser {
    /// The CDP connection to the browser target.
    pub cdp: Cdp,
    /// `chrome-extension://<id>`.
    pub extension_origin: String,
    // Dropped last: kills Chromium and removes its profile.
    chromium: Chromium,
}

/// Which build of the extension to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The product (`$PANELOT_EXTENSION_DIR`, else `dist/extension`).
    Product,
    /// The product plus test-only exports (`$PANELOT_TEST_EXTENSION_DIR`, else
    /// `dist/extension-test`).
    Test,
}

/// The built extension of a flavor.
pub fn extension_dir(flavor: Flavor) -> anyhow::Result<PathBuf> {
    let (var, default) = match flavor {
        Flavor::Product => ("PANELOT_EXTENSION_DIR", "dist/extension"),
        Flavor::Test => ("PANELOT_TEST_EXTENSION_DIR", "dist/extension-test"),
    };
    let dir = match std::env::var_os(var) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(default),
    };
    if !dir.join("manifest.json").is_file() {
        bail!("no built extension at {}: run `cargo xtask test`, which builds it", dir.display());
    }
    Ok(dir)
}

impl Browser {
    /// Launches headless Chromium with the product extension on a fresh profile.
    pub fn launch() -> anyhow::Result<Self> {
        Self::launch_flavor(Flavor::Product)
    }

    /// Launches headless Chromium with a flavor of the extension on a fresh profile.
    pub fn launch_flavor(flavor: Flavor) -> anyhow::Result<Self> {
        Self::launch_from(extension_dir(flavor)?, Vec::new())
    }

    /// Launches headless Chromium with the extension built into `extension_dir` and more
    /// Chromium flags.
    pub fn launch_from(extension_dir: PathBuf, extra_args: Vec<String>) -> anyhow::Result<Self> {
        Self::launch_custom(extension_dir, |options, _| options.extra_args = extra_args)
    }

    /// Launches headless Chromium with a flavor of the extension, after `customize` set more of
    /// the launch options (flags, a seeded profile); it gets the extension's id too.
    pub fn launch_with(
        flavor: Flavor,
        customize: impl FnOnce(&mut LaunchOptions, &str),
    ) -> anyhow::Result<Self> {
        Self::launch_custom(extension_dir(flavor)?, customize)
    }

    fn launch_custom(
        extension_dir: PathBuf,
        customize: impl FnOnce(&mut LaunchOptions, &str),
    ) -> anyhow::Result<Self> {
        let id = extension_id(&extension_dir)?;
        let mut options =
            LaunchOptions::new(find_chromium()?, Some(extension_dir), Display::Headless);
        customize(&mut options, &id);
        let chromium = Chromium::launch(&options)?;
        let cdp = chromium.connect()?;
        let mut browser =
            Browser { cdp, extension_origin: format!("chrome-extension://{id}"), chromium };
        // A fresh install opens the options page on "Connect a model" (first run). Tests about
        // something else start without it: it would take the foreground from the pages they
        // open, and a background tab gets no animation frames.
        if let Some(tab) = browser.first_run_tab()? {
            browser.cdp.close_target(&tab)?;
        }
        Ok(browser)
    }

    /// Launches headless Chromium with the product extension on a fresh profile, keeping the
    /// options tab the install opened (see [`Browser::first_run_tab`]).
    pub fn launch_first_run() -> anyhow::Result<Self> {
        let extension_dir = extension_dir(Flavor::Product)?;
        let id = extension_id(&extension_dir)?;
        let options = LaunchOptions::new(find_chromium()?, Some(extension_dir), Display::Headless);
        let chromium = Chromium::launch(&options)?;
        let cdp = chromium.connect()?;
        Ok(Browser { cdp, extension_origin: format!("chrome-extension://{id}"), chromium })
    }

    /// The target id of the tab a fresh install opens (`options.html#connect`), waiting for it a
    /// while; `None` if none opened (a build without the first-run tab).
    pub fn first_run_tab(&mut self) -> anyhow::Result<Option<String>> {
        let url = format!("{}/options.html#connect", self.extension_origin);
        let deadline = std::time::Instant::now() + FIRST_RUN_DEADLINE;
        loop {
            let pages = self.cdp.targets("page")?;
            let tab = pages.iter().find(|t| t["url"].as_str() == Some(url.as_str()));
            if let Some(id) = tab.and_then(|t| t["targetId"].as_str()) {
                return Ok(Some(id.to_owned()));
            }
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Opens an extension page (`sidepanel.html`, `chat.html`, ...) in a new tab.
    pub fn open_extension_page(&mut self, page: &str) -> anyhow::Result<Page> {
        let url = format!("{}/{page}", self.extension_origin);
        self.cdp
            .open_page(&url)
            .with_context(|| format!("Chromium log:\n{}", self.chromium.log_tail()))
    }

    /// Connects a new port from `page`, posts `messages` in order, and collects what comes back
    /// until `expected` messages arrived or the port closed. Returns
    /// `{how: "complete" | "disconnected" | "timeout", events: [...]}`.
    pub fn exchange(
        &mut self,
        page: &Page,
        messages: &[Value],
        expected: usize,
    ) -> anyhow::Result<Value> {
        let script = format!(
            r#"new Promise((resolve) => {{
                const port = chrome.runtime.connect({{ name: "panelot-e2e" }});
                const events = [];
                const finish = (how) => {{ resolve({{ how, events }}); }};
                port.onMessage.addListener((m) => {{
                    if (typeof m === "string") m = JSON.parse(m);
                    events.push(m);
                    if (events.length >= {expected}) {{ finish("complete"); port.disconnect(); }}
                }});
                port.onDisconnect.addListener(() => finish("disconnected"));
                for (const m of {messages}) port.postMessage(m);
                setTimeout(() => finish("timeout"), 30000);
            }})"#,
            messages = Value::Array(messages.to_vec()),
        );
        self.cdp
            .evaluate(page, &script)
            .with_context(|| format!("Chromium log:\n{}", self.log_tail()))
    }

    /// Kills the extension's service worker (`Target.closeTarget`); the next port wakes it.
    pub fn kill_service_worker(&mut self) -> anyhow::Result<()> {
        let workers = self.cdp.targets("service_worker")?;
        let worker = workers
            .iter()
            .find(|t| t["url"].as_str().is_some_and(|u| u.starts_with(&self.extension_origin)))
            .context("the extension's service worker is not running")?;
        let id = worker["targetId"].as_str().context("service worker without targetId")?.to_owned();
        self.cdp.close_target(&id)
    }

    /// Chromium's own log, for failure messages.
    pub fn log_tail(&self) -> String {
        self.chromium.log_tail()
    }
}
