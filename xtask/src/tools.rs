//! Finding and installing the tools the build needs. Each installs itself when missing and says
//! so; when it cannot, the error names what to install.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;
use xshell::Shell;
use xshell::cmd;

use crate::step;

pub(crate) const WASM_TARGET: &str = "wasm32-unknown-unknown";

pub(crate) fn ensure_wasm_target(sh: &Shell) -> anyhow::Result<()> {
    let installed = cmd!(sh, "rustup target list --installed").read().unwrap_or_default();
    if installed.lines().any(|line| line.trim() == WASM_TARGET) {
        return Ok(());
    }
    step(&format!("installing the {WASM_TARGET} target with rustup"));
    cmd!(sh, "rustup target add {WASM_TARGET}")
        .run()
        .with_context(|| format!("install it by hand: rustup target add {WASM_TARGET}"))
}

/// The wasm-bindgen version locked in Cargo.lock; the CLI must match it exactly.
fn locked_wasm_bindgen_version(root: &Path) -> anyhow::Result<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            let version = lines.next().unwrap_or_default();
            if let Some(v) = version.strip_prefix("version = \"").and_then(|v| v.strip_suffix('"'))
            {
                return Ok(v.to_owned());
            }
        }
    }
    bail!("wasm-bindgen is not in Cargo.lock")
}

/// Returns the `wasm-bindgen` binary matching Cargo.lock, installing it with cargo when needed.
/// `cargo install --locked` fails on these machines, so the pinned version is installed without
/// it, once; cargo keeps it in `~/.cargo/bin`.
pub(crate) fn ensure_wasm_bindgen(sh: &Shell, root: &Path) -> anyhow::Result<PathBuf> {
    let want = locked_wasm_bindgen_version(root)?;
    let have =
        cmd!(sh, "wasm-bindgen --version").quiet().ignore_stderr().read().unwrap_or_default();
    if have.split_whitespace().nth(1) == Some(want.as_str()) {
        return Ok(PathBuf::from("wasm-bindgen"));
    }
    step(&format!("installing wasm-bindgen-cli {want} (once; this takes a few minutes)"));
    cmd!(sh, "cargo install wasm-bindgen-cli --version {want}").run().with_context(|| {
        format!("install it by hand: cargo install wasm-bindgen-cli --version {want}")
    })?;
    Ok(PathBuf::from("wasm-bindgen"))
}

fn is_root(sh: &Shell) -> bool {
    cmd!(sh, "id -u").quiet().read().map(|uid| uid.trim() == "0").unwrap_or(false)
}

fn apt_install(sh: &Shell, package: &str) -> anyhow::Result<()> {
    step(&format!("installing {package} with apt-get"));
    cmd!(sh, "apt-get update -qq").quiet().run()?;
    cmd!(sh, "apt-get install -y -qq {package}").env("DEBIAN_FRONTEND", "noninteractive").run()?;
    Ok(())
}

/// `wasm-opt` from the npm package `binaryen` (pinned in `web/executor`), else one on `PATH`.
/// Debian's binaryen 108 cannot parse the reference-types instructions rustc now emits, so it is
/// only a fallback; without any, the wasm is left unoptimized and the build says so.
pub(crate) fn wasm_opt(sh: &Shell, root: &Path) -> Option<PathBuf> {
    let npm_bin = root.join("web/executor/node_modules/.bin/wasm-opt");
    if npm_bin.is_file() {
        return Some(npm_bin);
    }
    if cmd!(sh, "wasm-opt --version").quiet().ignore_stderr().read().is_ok() {
        return Some(PathBuf::from("wasm-opt"));
    }
    step("wasm-opt not found (npm package binaryen); the wasm is left unoptimized");
    None
}

/// Installs the executor's npm packages from its lockfile when they are missing or older.
pub(crate) fn ensure_npm_packages(sh: &Shell, root: &Path) -> anyhow::Result<()> {
    let dir = root.join("web/executor");
    let stamp = dir.join("node_modules/.package-lock.json");
    let lock = dir.join("package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(&lock)) {
        (Ok(stamp), Ok(lock)) => stamp.modified()? >= lock.modified()?,
        _ => false,
    };
    if fresh {
        return Ok(());
    }
    cmd!(sh, "npm --version")
        .quiet()
        .read()
        .context("npm is missing: install Node.js 20 and npm")?;
    step("installing the executor's npm packages (npm ci)");
    let _dir = sh.push_dir(&dir);
    cmd!(sh, "npm ci --no-audit --no-fund").run()?;
    Ok(())
}

/// Chromium for `run` and the end-to-end tests, installed with apt when root.
pub(crate) fn ensure_chromium(sh: &Shell) -> anyhow::Result<PathBuf> {
    if let Ok(path) = panelot_testkit::chromium::find_chromium() {
        return Ok(path);
    }
    if is_root(sh) {
        apt_install(sh, "chromium")?;
    }
    panelot_testkit::chromium::find_chromium()
}
