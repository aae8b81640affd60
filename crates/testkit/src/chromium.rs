//! Launching Chromium with the extension on a fresh profile.
//!
//! The standard flags make Chromium start on a test machine with no GPU and no outside network,
//! possibly as root in a container: `--no-sandbox` (Chromium's sandbox refuses to run as root),
//! `--disable-gpu`, no first-run or default-browser prompts, and `--remote-debugging-port=0`
//! (a free port, read back from `DevToolsActivePort`). Without the background-networking,
//! component-update and sync flags Chromium floods the closed network with refused connections.
//! [`LaunchOptions::extra_args`] adds switches after them; [`loopback_hosts`] builds the
//! `--host-resolver-rules` switch that lets pages be served from several made-up origins
//! (`http://shop.test:PORT`, `http://evil.test:PORT`) by one loopback server.
//! [`LaunchOptions::preferences`] seeds the profile's `Default/Preferences` before the first
//! start, for state a profile would have from earlier use (see
//! [`crate::granted_before`]).

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::bail;

use crate::cdp::Cdp;

/// Where Chromium draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// No window (`--headless`).
    Headless,
    /// A real window on the current display.
    Window,
}

/// How to launch.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The Chromium binary.
    pub binary: PathBuf,
    /// An unpacked extension to load.
    pub extension_dir: Option<PathBuf>,
    /// Headless or windowed.
    pub display: Display,
    /// More command-line flags (`--host-resolver-rules=MAP *.test 127.0.0.1`, see
    /// [`loopback_hosts`]), after the standard ones.
    pub extra_args: Vec<String>,
    /// Written to the profile's `Default/Preferences` before Chromium starts.
    pub preferences: Option<serde_json::Value>,
}

impl LaunchOptions {
    /// Options with no extra flags and a profile that starts empty.
    pub fn new(binary: PathBuf, extension_dir: Option<PathBuf>, display: Display) -> Self {
        LaunchOptions { binary, extension_dir, display, extra_args: Vec::new(), preferences: None }
    }
}

/// `--host-resolver-rules` resolving every host matching one of `patterns` (`*.test`,
/// `*.panelot.gov`) to `127.0.0.1`; other names resolve as usual. The port stays the one in the
/// URL, so one loopback server answers for all of them and tells them apart by the `Host`
/// header.
pub fn loopback_hosts(patterns: &[&str]) -> String {
    let rules: Vec<String> = patterns.iter().map(|p| format!("MAP {p} 127.0.0.1")).collect();
    format!("--host-resolver-rules={}", rules.join(","))
}

/// A running Chromium on a throwaway profile, killed and cleaned up on drop.
#[derive(Debug)]
pub struct Chromium {
    child: Child,
    profile: PathBuf,
    port: u16,
    browser_path: String,
}

/// Finds Chromium: `$PANELOT_CHROMIUM`, then the usual names on `PATH`.
pub fn find_chromium() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os("PANELOT_CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path_var) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    bail!("Chromium not found: install Debian's `chromium` package or set PANELOT_CHROMIUM")
}

static PROFILE_COUNTER: AtomicU32 = AtomicU32::new(0);

impl Chromium {
    /// Launches Chromium and waits for its DevTools endpoint. A browser that does not come up
    /// is killed and launched once more, in a new profile: on a loaded machine a start now and
    /// then never writes its endpoint (seen in CI: two side panels launched at once, neither
    /// listening after 30 s, both fine when run again), and that says nothing of the product.
    pub fn launch(options: &LaunchOptions) -> anyhow::Result<Self> {
        match Chromium::launch_once(options) {
            Ok(chromium) => Ok(chromium),
            Err(first) => {
                eprintln!("chromium: launching again after: {first:#}");
                Chromium::launch_once(options)
                    .with_context(|| format!("launched twice; the first time: {first:#}"))
            }
        }
    }

    fn launch_once(options: &LaunchOptions) -> anyhow::Result<Self> {
        let profile = std::env::temp_dir().join(format!(
            "panelot-chromium-{}-{}",
            std::process::id(),
            PROFILE_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        if profile.exists() {
            std::fs::remove_dir_all(&profile)?;
        }
        std::fs::create_dir_all(&profile)?;
        if let Some(preferences) = &options.preferences {
            let default = profile.join("Default");
            std::fs::create_dir_all(&default)?;
            std::fs::write(default.join("Preferences"), serde_json::to_vec(preferences)?)?;
        }
        let log = std::fs::File::create(profile.join("chromium.log"))?;
        let mut command = Command::new(&options.binary);
        if options.display == Display::Headless {
            command.arg("--headless");
        }
        command.args([
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-port=0",
        ]);
        command.args(&options.extra_args);
        command.arg(format!("--user-data-dir={}", profile.display()));
        if let Some(dir) = &options.extension_dir {
            command.arg(format!("--load-extension={}", dir.display()));
            command.arg(format!("--disable-extensions-except={}", dir.display()));
        }
        command.arg("about:blank");
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
        let child =
            command.spawn().with_context(|| format!("starting {}", options.binary.display()))?;
        let mut chromium = Chromium { child, profile, port: 0, browser_path: String::new() };
        chromium.await_devtools()?;
        Ok(chromium)
    }

    /// Reads `DevToolsActivePort`, which Chromium writes once its endpoint listens.
    fn await_devtools(&mut self) -> anyhow::Result<()> {
        let file = self.profile.join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    self.port = port.trim().parse()?;
                    self.browser_path = path.trim().to_owned();
                    return Ok(());
                }
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("Chromium exited ({status}) before DevTools listened:\n{}", self.log_tail());
            }
            if Instant::now() > deadline {
                bail!("Chromium's DevTools endpoint did not come up:\n{}", self.log_tail());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `http://127.0.0.1:<port>`, for attaching DevTools by hand.
    pub fn devtools_http_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Connects a CDP client to the browser target.
    pub fn connect(&self) -> anyhow::Result<Cdp> {
        Cdp::connect(self.port, &self.browser_path)
    }

    /// Opens `url` in a new tab.
    pub fn open(&mut self, url: &str) -> anyhow::Result<()> {
        let mut cdp = self.connect()?;
        cdp.call("Target.createTarget", serde_json::json!({ "url": url }))?;
        Ok(())
    }

    /// Waits until Chromium exits.
    pub fn wait(&mut self) -> anyhow::Result<()> {
        self.child.wait()?;
        Ok(())
    }

    /// The last lines of Chromium's own log, for failure messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.profile.join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// The profile directory.
    pub fn profile_dir(&self) -> &Path {
        &self.profile
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
