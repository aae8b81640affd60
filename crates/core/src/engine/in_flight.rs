//! Effects the host is running for the engine, by id, with what each belongs to: a late result
//! of an effect that was aborted or belongs to a run that ended finds no owner and is dropped.

use panelot_protocol::ConnectionId;
use panelot_protocol::RunId;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;

use super::outbox::EffectId;
use super::outbox::PortId;
use crate::sorted_map::SortedMap;

/// What an effect in flight belongs to.
#[derive(Debug, Clone)]
pub(crate) enum InFlight {
    /// The model call of a run.
    Model(RunId),
    /// The target resolution of a run's call (index into its tool calls).
    Target(RunId, usize),
    /// A tool call of a run (index into its tool calls).
    Tool(RunId, usize),
    /// The watch of a run waiting on `watch_page` (index into its tool calls).
    Watch(RunId, usize),
    /// The title of a thread, generated beside its first turn.
    Title { thread: ThreadId, fallback: String },
    /// A connection check asked for by a port.
    Verify { port: PortId, submission_id: SubmissionId, connection_id: ConnectionId },
    /// A port's question to the MCP servers.
    McpQuery { port: PortId, submission_id: SubmissionId, query: super::outbox::McpQuery },
}

impl InFlight {
    fn run(&self) -> Option<&RunId> {
        match self {
            InFlight::Model(run)
            | InFlight::Target(run, _)
            | InFlight::Tool(run, _)
            | InFlight::Watch(run, _) => Some(run),
            InFlight::Title { .. } | InFlight::Verify { .. } | InFlight::McpQuery { .. } => None,
        }
    }
}

/// The effects in flight.
#[derive(Debug)]
pub(crate) struct InFlightTable {
    owners: SortedMap<EffectId, InFlight>,
    next: EffectId,
}

impl Default for InFlightTable {
    fn default() -> Self {
        InFlightTable { owners: SortedMap::new(), next: 1 }
    }
}

impl InFlightTable {
    /// Numbers a new effect of `owner`.
    pub(crate) fn start(&mut self, owner: InFlight) -> EffectId {
        let id = self.next;
        self.next += 1;
        self.owners.insert(id, owner);
        id
    }

    /// The owner of `id`, no longer in flight.
    pub(crate) fn finish(&mut self, id: EffectId) -> Option<InFlight> {
        self.owners.remove(&id)
    }

    /// The owner of `id`, still in flight (a model stream goes on after each event).
    pub(crate) fn owner(&self, id: EffectId) -> Option<&InFlight> {
        self.owners.get(&id)
    }

    /// The tool calls in flight: run and index.
    pub(crate) fn tool_calls(&self) -> Vec<(RunId, usize)> {
        self.owners
            .values()
            .filter_map(|owner| match owner {
                InFlight::Tool(run, index) => Some((run.clone(), *index)),
                _ => None,
            })
            .collect()
    }

    /// Takes every effect of `run` out of flight, for aborting.
    pub(crate) fn take_run(&mut self, run: &RunId) -> Vec<EffectId> {
        self.take_where(|owner| owner.run() == Some(run))
    }

    /// Takes every effect of the thread's title and of the runs `of_thread` says are its own.
    pub(crate) fn take_thread(
        &mut self,
        thread: &ThreadId,
        of_thread: impl Fn(&RunId) -> bool,
    ) -> Vec<EffectId> {
        self.take_where(|owner| match owner {
            InFlight::Title { thread: it, .. } => it == thread,
            InFlight::Model(run)
            | InFlight::Target(run, _)
            | InFlight::Tool(run, _)
            | InFlight::Watch(run, _) => of_thread(run),
            InFlight::Verify { .. } | InFlight::McpQuery { .. } => false,
        })
    }

    fn take_where(&mut self, pick: impl Fn(&InFlight) -> bool) -> Vec<EffectId> {
        let ids: Vec<EffectId> =
            self.owners.iter().filter(|(_, owner)| pick(owner)).map(|(id, _)| *id).collect();
        for id in &ids {
            self.owners.remove(id);
        }
        ids
    }
}
