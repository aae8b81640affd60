//! `cargo xtask build`: the extension in `dist/extension/`.
//!
//! Layout: `manifest.json`, the module service worker `sw.js` with the engine and MCP wasm
//! under `wasm/` (the MCP module behind `mcp_bridge.js`), the three UI pages (side panel, chat,
//! options) sharing `ui.js` and the UI wasm, and the page executor bundle `executor.js`; the
//! pages' stylesheets under `css/`, and under `icons/` the extension's icons. The UI's icon
//! sprite is written into each page (see `icons.rs`).

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use xshell::Shell;
use xshell::cmd;

use crate::step;
use crate::tools;

/// The wasm crates: (package, library file stem, output name under `wasm/`). The MCP client is
/// a module of its own in the service worker (`mcp_bridge.js` instantiates it only once a server
/// is configured), so it costs the engine wasm nothing.
const WASM_CRATES: [(&str, &str, &str); 3] = [
    ("panelot-extension", "panelot_extension", "engine"),
    ("panelot-ui", "panelot_ui", "ui"),
    ("panelot-mcp-worker", "panelot_mcp_worker", "mcp"),
];

/// Which extension to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// What users load: `dist/extension`.
    Product,
    /// The product plus test-only exports (the store conformance suite): `dist/extension-test`,
    /// used by the end-to-end tests and never shipped.
    Test,
}

impl Flavor {
    fn dir(self) -> &'static str {
        match self {
            Flavor::Product => "extension",
            Flavor::Test => "extension-test",
        }
    }

    fn cargo_features(self) -> &'static [&'static str] {
        match self {
            Flavor::Product => &[],
            Flavor::Test => &["--features", "panelot-extension/conformance"],
        }
    }
}

/// Builds the product extension and returns its directory.
pub(crate) fn build_extension(root: &Path) -> anyhow::Result<PathBuf> {
    build(root, Flavor::Product)
}

/// Builds one flavor and returns its directory.
pub(crate) fn build(root: &Path, flavor: Flavor) -> anyhow::Result<PathBuf> {
    let sh = Shell::new()?;
    tools::ensure_wasm_target(&sh)?;
    let wasm_bindgen = tools::ensure_wasm_bindgen(&sh, root)?;
    let dist = dist_root(root).join(flavor.dir());
    if dist.exists() {
        std::fs::remove_dir_all(&dist).with_context(|| format!("cleaning {}", dist.display()))?;
    }
    std::fs::create_dir_all(dist.join("wasm"))?;

    step(&format!(
        "building the engine, UI and MCP wasm for {} (profile wasm-release)",
        dist.display()
    ));
    let target = tools::WASM_TARGET;
    let features = flavor.cargo_features();
    let packages = WASM_CRATES.iter().flat_map(|(package, _, _)| ["-p", package]);
    cmd!(sh, "cargo build --target {target} --profile wasm-release {packages...} {features...}")
        .run()?;
    let target_dir = target_dir(&sh, root)?;
    tools::ensure_npm_packages(&sh, root)?;
    let wasm_opt = tools::wasm_opt(&sh, root);
    let mut oversized = None;
    for (_, stem, out_name) in WASM_CRATES {
        let input = target_dir.join(format!("{target}/wasm-release/{stem}.wasm"));
        let out_dir = dist.join("wasm");
        cmd!(
            sh,
            "{wasm_bindgen} --target web --no-typescript --out-dir {out_dir} --out-name {out_name} {input}"
        )
        .run()?;
        let file = out_dir.join(format!("{out_name}_bg.wasm"));
        let optimized = match &wasm_opt {
            Some(wasm_opt) => optimize(&sh, wasm_opt, &file)?,
            None => false,
        };
        let size = std::fs::metadata(&file)?.len();
        let how = if optimized { "after wasm-opt" } else { "NOT optimized" };
        step(&format!("wasm/{out_name}_bg.wasm: {} bytes ({how})", thousands(size)));
        if out_name == "engine" && flavor == Flavor::Product {
            if !optimized {
                step("the engine wasm's size limit is not checked: wasm-opt did not run");
            } else if size > ENGINE_WASM_LIMIT {
                oversized = Some(size);
            }
        }
    }

    step("copying the static files");
    copy_dir(&root.join("crates/extension/static"), &dist)?;
    copy_dir(&root.join("crates/ui/static"), &dist)?;
    crate::icons::write_sprite(root, &dist)?;

    step("bundling the page executor with esbuild");
    let executor_dir = root.join("web/executor");
    let out = dist.join("executor.js");
    let _dir = sh.push_dir(&executor_dir);
    cmd!(
        sh,
        "node_modules/.bin/esbuild src/main.ts --bundle --format=iife --target=chrome116 --log-level=warning --outfile={out}"
    )
    .run()?;
    if let Some(size) = oversized {
        // A warning, not a failure, while the engine is over: the end-to-end tests build the
        // product first and would all stop. Make it a `bail!` once the engine is back under.
        eprintln!(
            "\n\
             xtask: WARNING: the engine wasm is OVER its size limit\n\
             xtask:   {}/wasm/engine_bg.wasm is {} bytes after wasm-opt, {} over the limit of\n\
             xtask:   {} bytes (1.5 MiB). Find the growth with `twiggy diff` of the\n\
             xtask:   pre-bindgen wasm against an older build's, and cut it.\n",
            dist.display(),
            thousands(size),
            thousands(size - ENGINE_WASM_LIMIT),
            thousands(ENGINE_WASM_LIMIT),
        );
    }
    step(&format!("built {}", dist.display()));
    Ok(dist)
}

/// The most the product engine wasm may weigh after wasm-opt: 1.5 MiB, the budget the engine
/// was cut to. Every product build checks it and warns above it, naming the size and the limit.
const ENGINE_WASM_LIMIT: u64 = 1_572_864;

/// `1572864` as `1,572,864`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Where the flavors are written: `$PANELOT_DIST_DIR` when set (so that two checkouts or two
/// people building at once do not delete each other's extension), else `dist/` in the checkout.
fn dist_root(root: &Path) -> PathBuf {
    match std::env::var_os("PANELOT_DIST_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => root.join("dist"),
    }
}

fn target_dir(sh: &Shell, root: &Path) -> anyhow::Result<PathBuf> {
    if let Ok(dir) = std::env::var("CARGO_TARGET_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let metadata = cmd!(sh, "cargo metadata --format-version 1 --no-deps").quiet().read()?;
    let marker = "\"target_directory\":\"";
    let start = metadata.find(marker).map(|i| i + marker.len());
    let dir = start.and_then(|s| metadata[s..].find('"').map(|e| &metadata[s..s + e]));
    Ok(dir.map(PathBuf::from).unwrap_or_else(|| root.join("target")))
}

/// The wasm features rustc and wasm-bindgen emit for this target, which every supported Chrome
/// (116 and later) has. wasm-opt may use these and no others.
const WASM_FEATURES: [&str; 6] = [
    "--enable-bulk-memory",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// wasm-opt's passes, in order. Merging functions that differ only in constants (the copies of a
/// generic function for types of the same shape) before `-Oz` inlines them apart took 19 KB off
/// the engine. `--low-memory-unused` lets it fold added constants into load and store offsets:
/// the two differ only when the address wraps below 1024, which Rust code never does (the stack
/// grows down towards 0, so only an overflowed stack reaches there, and that then traps instead
/// of writing the stack's last kilobyte); 16 KB more.
const WASM_OPT_PASSES: [&str; 3] = ["--merge-similar-functions", "-Oz", "--low-memory-unused"];

/// Runs wasm-opt for size; whether it did. A failure keeps the unoptimized file and says so
/// rather than failing the build.
fn optimize(sh: &Shell, wasm_opt: &Path, file: &Path) -> anyhow::Result<bool> {
    let tmp = file.with_extension("opt.wasm");
    let (passes, features) = (WASM_OPT_PASSES, WASM_FEATURES);
    let res = cmd!(sh, "{wasm_opt} {passes...} {features...} {file} -o {tmp}").quiet().run();
    match res {
        Ok(()) => {
            std::fs::rename(&tmp, file)?;
            Ok(true)
        }
        Err(err) => {
            let _ = std::fs::remove_file(&tmp);
            step(&format!("wasm-opt failed on {} ({err}); kept it unoptimized", file.display()));
            Ok(false)
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&dest)?;
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_572_864), "1,572,864");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }
}
