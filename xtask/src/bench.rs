//! `cargo xtask bench`: runs the benchmark binaries (harness-free, each prints medians).

use std::path::Path;

use xshell::Shell;
use xshell::cmd;

pub(crate) fn bench(_root: &Path) -> anyhow::Result<()> {
    let sh = Shell::new()?;
    // `--benches`: only the benchmark binaries, not every test target in bench mode.
    cmd!(sh, "cargo bench --workspace --benches --quiet").run()?;
    Ok(())
}
