//! `cargo xtask test`: everything CI runs, fastest checks first.

use std::path::Path;

use xshell::Shell;
use xshell::cmd;

use crate::step;

pub(crate) fn test(root: &Path) -> anyhow::Result<()> {
    let sh = Shell::new()?;
    step("cargo fmt --check");
    cmd!(sh, "cargo fmt --all -- --check").run()?;
    step("tidy (docs, citations, import cycles of crates/core)");
    crate::tidy::check(root)?;
    step("protocol files");
    crate::protocol::protocol(root, false)?;
    step("clippy -D warnings");
    cmd!(sh, "cargo clippy --workspace --all-targets --quiet -- -D warnings").run()?;
    let dist = crate::build::build_extension(root)?;
    let test_dist = crate::build::build(root, crate::build::Flavor::Test)?;
    step("typechecking the page executor");
    {
        let _dir = sh.push_dir(root.join("web/executor"));
        cmd!(sh, "node_modules/.bin/tsc --noEmit -p .").run()?;
    }
    let chromium = crate::tools::ensure_chromium(&sh)?;
    step("cargo test --workspace (unit, property, integration and end-to-end tests)");
    cmd!(sh, "cargo test --workspace")
        .env("PANELOT_EXTENSION_DIR", &dist)
        .env("PANELOT_TEST_EXTENSION_DIR", &test_dist)
        .env("PANELOT_CHROMIUM", &chromium)
        .run()?;
    step("all checks passed");
    Ok(())
}
