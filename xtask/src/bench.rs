//! `cargo xtask bench`: runs the benchmark binaries (harness-free, each prints medians).

use std::path::Path;

use xshell::Shell;
use xshell::cmd;

pub(crate) fn bench(_root: &Path) -> anyhow::Result<()> {
    let sh = Shell::new()?;
    cmd!(sh, "cargo bench --workspace --quiet").run()?;
    Ok(())
}
