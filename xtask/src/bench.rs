//! `cargo xtask bench`: runs the benchmark binaries (harness-free, each prints medians), after
//! building the extension's test flavor for the in-browser ones.

use std::path::Path;

use xshell::Shell;
use xshell::cmd;

pub(crate) fn bench(root: &Path) -> anyhow::Result<()> {
    // The browser benchmarks load the test flavor (it can seed a large thread).
    let test_dist = crate::build::build(root, crate::build::Flavor::Test)?;
    let sh = Shell::new()?;
    let _env = sh.push_env("PANELOT_TEST_EXTENSION_DIR", &test_dist);
    // `--benches`: only the benchmark binaries, not every test target in bench mode.
    cmd!(sh, "cargo bench --workspace --benches --quiet").run()?;
    Ok(())
}
