//! `cargo xtask sim`: the engine simulation with more seeds than `cargo xtask test` runs, or one
//! seed replayed.

use std::path::Path;

use anyhow::Context;
use xshell::Shell;
use xshell::cmd;

use crate::step;

pub(crate) fn sim(_root: &Path, seeds: Option<String>, seed: Option<String>) -> anyhow::Result<()> {
    let sh = Shell::new()?;
    let (name, value) = match (seed, seeds) {
        (Some(one), _) => ("PANELOT_SIM_SEED", one),
        (None, many) => ("PANELOT_SIM_SEEDS", many.unwrap_or_else(|| "5000".to_owned())),
    };
    value.parse::<u64>().with_context(|| format!("{value} is not a number"))?;
    step(&format!("simulation with {name}={value} (release build)"));
    let _env = sh.push_env(name, &value);
    cmd!(
        sh,
        "cargo test --release -p panelot-core --lib sim::sim_tests -- --nocapture --test-threads 1"
    )
    .run()?;
    Ok(())
}
