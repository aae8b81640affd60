//! The run machine: the agent loop as pure steps. Each step takes a run record and what it reads
//! (the thread's state, the stored path, the permission state) and returns a [`Step`]: the unit
//! of work to commit (nodes, thread leaf and run state together), then the events, effects and
//! follow-ups. The router loads, commits, publishes and starts effects; a step never does IO and
//! never calls another step, so a restart at any point finds the store at a step boundary.
//!
//! * [`start`]: a queued run's message and turn context join the thread.
//! * [`model_call`]: the next model request (steers joined first), or a pause over budget.
//! * [`stream`]: model events as items; [`answer`]: the answer and its tool calls written.
//! * [`dispatch`]: each call checked, its target resolved, judged, asked about or dispatched.
//! * [`result`]: a call's result written, with the safety nets, taint and the run's route.
//! * [`end`]: the end of a run (and parking it); [`title`]: the thread's generated title.
//!
//! [`Step`]: super::decision::Step

pub(crate) mod answer;
pub(crate) mod chain;
pub(crate) mod dispatch;
pub(crate) mod end;
pub(crate) mod model_call;
pub(crate) mod result;
pub(crate) mod start;
pub(crate) mod stream;
pub(crate) mod title;

use crate::env::Env;
use crate::tools::ToolRegistry;

/// What every step may read besides its inputs.
#[derive(Clone, Copy)]
pub(crate) struct Cx<'a> {
    pub(crate) env: &'a Env,
    pub(crate) tools: &'a ToolRegistry,
}
