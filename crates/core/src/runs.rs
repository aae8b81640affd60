//! Runs: the state machine of one turn's execution ([`transitions`]) and what a restart does with
//! each stored run ([`recovery`]), both pure.

pub mod recovery;
pub mod transitions;
