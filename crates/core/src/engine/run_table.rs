//! The open runs, mirroring the store (changed only after a commit, from the unit that was
//! committed), with the streaming state of their model calls and what snapshots show of them.

use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ActiveTurn;
use panelot_protocol::engine::PendingApproval;
use panelot_protocol::engine::PendingInteraction;
use panelot_protocol::engine::QueuedRun;
use panelot_protocol::engine::RecoveryOption;
use panelot_protocol::engine::RunRecoveryState;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StreamingItem;
use panelot_protocol::engine::ThreadActivity;
use panelot_protocol::engine::TurnKind;

use super::machine::stream::LiveRun;
use super::waits;
use crate::sort::sort_by_u64_key;
use crate::sorted_map::SortedMap;
use crate::store::RunRecord;
use crate::store::ToolCallStatus;
use crate::store::WriteOp;

/// Open runs and their live streams.
#[derive(Debug)]
pub(crate) struct RunTable {
    runs: SortedMap<RunId, RunRecord>,
    live: SortedMap<RunId, LiveRun>,
    next_seq: u64,
    /// First turns whose thread gets a generated title once their first model call ended (so
    /// the title call never competes with the turn's own first call).
    titles_pending: SortedMap<RunId, ()>,
}

impl Default for RunTable {
    fn default() -> Self {
        RunTable {
            runs: SortedMap::new(),
            live: SortedMap::new(),
            next_seq: 1,
            titles_pending: SortedMap::new(),
        }
    }
}

impl RunTable {
    /// Loads the stored open runs at start-up.
    pub(crate) fn load(&mut self, open: Vec<RunRecord>) {
        self.next_seq = open.iter().map(|r| r.seq + 1).max().unwrap_or(1).max(self.next_seq);
        for run in open {
            self.runs.insert(run.id.clone(), run);
        }
    }

    /// The admission number of the next run.
    pub(crate) fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Mirrors a committed unit's run changes.
    pub(crate) fn apply(&mut self, ops: &[WriteOp]) {
        for op in ops {
            match op {
                WriteOp::PutRun(run) if run.is_terminal() => {
                    self.runs.remove(&run.id);
                    self.live.remove(&run.id);
                    self.titles_pending.remove(&run.id);
                }
                WriteOp::PutRun(run) => {
                    self.runs.insert(run.id.clone(), (**run).clone());
                }
                WriteOp::DeleteRun(id) => {
                    self.runs.remove(id);
                    self.live.remove(id);
                }
                WriteOp::DeleteThread(thread) => {
                    self.runs.retain(|_, run| &run.thread_id != thread);
                }
                WriteOp::PutThread(_)
                | WriteOp::AppendNode(_)
                | WriteOp::PutReceipt(_)
                | WriteOp::PruneReceipts { .. }
                | WriteOp::PutAttachment(_)
                | WriteOp::PutSetting { .. } => {}
            }
        }
    }

    /// Forgets a run whose end could not be written (recovery finds it at its last step).
    pub(crate) fn forget(&mut self, run: &RunId) {
        self.runs.remove(run);
        self.live.remove(run);
    }

    /// A run by id.
    pub(crate) fn get(&self, run: &RunId) -> Option<&RunRecord> {
        self.runs.get(run)
    }

    /// Every open run, in admission order.
    pub(crate) fn open(&self) -> Vec<&RunRecord> {
        let mut runs: Vec<&RunRecord> = self.runs.values().collect();
        sort_by_u64_key(&mut runs, |r| r.seq);
        runs
    }

    /// The open runs of a thread.
    pub(crate) fn of_thread(&self, thread: &ThreadId) -> impl Iterator<Item = &RunRecord> {
        let thread = thread.clone();
        self.runs.values().filter(move |r| r.thread_id == thread)
    }

    /// The run of a thread doing (or waiting on) work of the loop.
    pub(crate) fn active(&self, thread: &ThreadId) -> Option<&RunRecord> {
        self.of_thread(thread).find(|r| r.is_active())
    }

    /// The run that waits for the approval `id`.
    pub(crate) fn with_approval(&self, id: &panelot_protocol::ApprovalId) -> Option<&RunRecord> {
        self.runs.values().find(|r| r.approval.as_ref().is_some_and(|a| &a.id == id))
    }

    /// The run that waits for the interaction `id`.
    pub(crate) fn with_interaction(
        &self,
        id: &panelot_protocol::InteractionId,
    ) -> Option<&RunRecord> {
        self.runs.values().find(|r| r.interaction.as_ref().is_some_and(|i| &i.id == id))
    }

    /// Runs whose wait for a page or a time is due by `now`.
    pub(crate) fn due_waits(&self, now: u64) -> Vec<RunRecord> {
        self.runs
            .values()
            .filter(|r| {
                r.interaction
                    .as_ref()
                    .and_then(|i| waits::due_at(&i.request))
                    .is_some_and(|due| due <= now)
            })
            .cloned()
            .collect()
    }

    /// When the next wait for a page or a time is due.
    pub(crate) fn next_wait_due(&self) -> Option<u64> {
        self.runs
            .values()
            .filter_map(|r| r.interaction.as_ref().and_then(|i| waits::due_at(&i.request)))
            .min()
    }

    /// Runs whose approval is due by `now`.
    pub(crate) fn expired_approvals(&self, now: u64) -> Vec<RunRecord> {
        self.runs
            .values()
            .filter(|r| r.approval.as_ref().is_some_and(|a| a.request.deadline_at_ms <= now))
            .cloned()
            .collect()
    }

    /// When the next approval expires.
    pub(crate) fn next_approval_deadline(&self) -> Option<u64> {
        self.runs
            .values()
            .filter_map(|r| r.approval.as_ref())
            .map(|a| a.request.deadline_at_ms)
            .min()
    }

    /// The queued runs of a thread, in order.
    pub(crate) fn queued(&self, thread: &ThreadId) -> Vec<QueuedRun> {
        let mut runs: Vec<&RunRecord> =
            self.of_thread(thread).filter(|r| r.state == RunState::Queued).collect();
        sort_by_u64_key(&mut runs, |r| r.seq);
        runs.into_iter().map(queued_run).collect()
    }

    /// The running turn of a thread as a snapshot shows it.
    pub(crate) fn active_turn(&self, thread: &ThreadId) -> Option<ActiveTurn> {
        let run = self.active(thread)?;
        let streaming_items = self
            .live
            .get(&run.id)
            .map(|live| {
                live.streaming()
                    .into_iter()
                    .map(|(item_id, kind, text)| StreamingItem {
                        item_id,
                        kind,
                        meta: Default::default(),
                        text,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(ActiveTurn {
            turn_id: run.turn_id.clone(),
            run_id: run.id.clone(),
            turn_kind: TurnKind::User,
            steerable: true,
            state: run.state,
            streaming_items,
            was_interrupted: false,
        })
    }

    /// Parked runs of a thread, as recovery cards.
    pub(crate) fn recoverable(&self, thread: &ThreadId) -> Vec<RunRecoveryState> {
        self.of_thread(thread).filter(|r| r.is_parked()).map(recovery_state).collect()
    }

    /// Approvals waiting in a thread.
    pub(crate) fn pending_approvals(&self, thread: &ThreadId) -> Vec<PendingApproval> {
        self.of_thread(thread)
            .filter_map(|r| {
                r.approval.as_ref().map(|a| PendingApproval {
                    approval_id: a.id.clone(),
                    turn_id: r.turn_id.clone(),
                    item_id: r.tools.get(a.tool_index).map(|call| call.item_id.clone()),
                    request: a.request.clone(),
                })
            })
            .collect()
    }

    /// What every thread with some activity is doing (running, waiting for the user), by
    /// thread id: what thread lists badge.
    pub(crate) fn activity(&self) -> Vec<ThreadActivity> {
        let mut by_thread: SortedMap<&ThreadId, ThreadActivity> = SortedMap::new();
        for run in self.runs.values() {
            let waits_approval = run.approval.is_some();
            let waits_answer =
                run.interaction.as_ref().is_some_and(|i| waits::asks_user(&i.request));
            // A turn waiting for the user is still running: its thread shows both.
            let running = run.is_active();
            if !(running || waits_approval || waits_answer) {
                continue;
            }
            let entry = by_thread.get_or_insert_with(&run.thread_id, || ThreadActivity {
                thread_id: run.thread_id.clone(),
                running: false,
                pending_approvals: 0,
                pending_interactions: 0,
            });
            entry.running |= running;
            entry.pending_approvals += u32::from(waits_approval);
            entry.pending_interactions += u32::from(waits_answer);
        }
        by_thread.into_values().collect()
    }

    /// Interactions waiting in a thread.
    pub(crate) fn pending_interactions(&self, thread: &ThreadId) -> Vec<PendingInteraction> {
        self.of_thread(thread)
            .filter_map(|r| {
                r.interaction.as_ref().map(|i| PendingInteraction {
                    interaction_id: i.id.clone(),
                    turn_id: r.turn_id.clone(),
                    request: i.request.clone(),
                })
            })
            .collect()
    }

    /// The live stream of a run's model call.
    pub(crate) fn live(&self, run: &RunId) -> Option<&LiveRun> {
        self.live.get(run)
    }

    /// The live stream of a run's model call, to feed.
    pub(crate) fn live_mut(&mut self, run: &RunId) -> Option<&mut LiveRun> {
        self.live.get_mut(run)
    }

    /// A new model call of the run starts streaming.
    pub(crate) fn stream_started(&mut self, run: &RunId) {
        self.live.insert(run.clone(), LiveRun::default());
    }

    /// The run's stream ended; what it held.
    pub(crate) fn stream_ended(&mut self, run: &RunId) -> LiveRun {
        self.live.remove(run).unwrap_or_default()
    }

    /// The thread of `run` gets a title once its first model call has ended.
    pub(crate) fn title_after_first_answer(&mut self, run: &RunId) {
        self.titles_pending.insert(run.clone(), ());
    }

    /// Whether the run's thread was waiting for a title (it no longer is).
    pub(crate) fn take_title(&mut self, run: &RunId) -> bool {
        self.titles_pending.remove(run).is_some()
    }
}

/// A queued run as the queue shows it.
pub(crate) fn queued_run(run: &RunRecord) -> QueuedRun {
    QueuedRun {
        run_id: run.id.clone(),
        input: run.input.clone(),
        overrides: run.overrides.clone(),
        revision: run.revision,
    }
}

/// The recovery card of a parked run.
pub(crate) fn recovery_state(run: &RunRecord) -> RunRecoveryState {
    let uncertain = run.tools.iter().find(|c| c.status != ToolCallStatus::Done);
    let options = match run.state {
        RunState::PausedUncertain => {
            vec![RecoveryOption::Retry, RecoveryOption::MarkDone, RecoveryOption::Fail]
        }
        _ => vec![RecoveryOption::Continue],
    };
    let tool = uncertain.filter(|_| run.state == RunState::PausedUncertain);
    RunRecoveryState {
        run_id: run.id.clone(),
        state: run.state,
        reason: run.note.clone().unwrap_or_default(),
        tool_name: tool.map(|c| c.tool_name.clone()),
        tool_params: tool.map(|c| c.params.clone()),
        options,
    }
}
