//! `cargo xtask fuzz`: the cargo-fuzz targets of `fuzz/` on the nightly toolchain.

use std::path::Path;

use anyhow::Context;
use xshell::Shell;
use xshell::cmd;

use crate::step;

const TARGETS: [&str; 3] = ["decode_op", "decode_event", "decode_content"];

pub(crate) fn fuzz(
    root: &Path,
    seconds: Option<String>,
    target: Option<String>,
) -> anyhow::Result<()> {
    let sh = Shell::new()?;
    let seconds: u64 =
        seconds.as_deref().unwrap_or("60").parse().context("--seconds takes a number")?;
    if cmd!(sh, "cargo +nightly --version").quiet().read().is_err() {
        anyhow::bail!("the nightly toolchain is missing: rustup toolchain install nightly");
    }
    if cmd!(sh, "cargo +nightly fuzz --version").quiet().ignore_stderr().read().is_err() {
        step("installing cargo-fuzz (once)");
        cmd!(sh, "cargo install cargo-fuzz").run()?;
    }
    let targets: Vec<String> = match target {
        Some(one) => vec![one],
        None => TARGETS.iter().map(|t| (*t).to_owned()).collect(),
    };
    let _dir = sh.push_dir(root);
    for target in targets {
        step(&format!("fuzzing {target} for {seconds} s"));
        let max_time = format!("-max_total_time={seconds}");
        cmd!(sh, "cargo +nightly fuzz run {target} -- {max_time}").run()?;
    }
    Ok(())
}
