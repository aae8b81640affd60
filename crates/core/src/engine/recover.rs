//! Start-up: the open runs are loaded and each gets its recovery action
//! ([`crate::runs::recovery::plan`]); then every thread with queued work is scheduled.

use panelot_protocol::engine::RunState;

use super::Engine;
use super::Outbox;
use crate::runs::recovery::RecoveryAction;
use crate::runs::recovery::plan;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;

impl<S: Store> Engine<S> {
    /// Loads the open runs and recovers them. Call once, before the first port connects; the
    /// outbox holds the effects to start (resumed model calls, replayed reads).
    pub async fn start(&mut self) -> Result<Outbox, StoreError> {
        let mut out = Outbox::default();
        self.seed_rules().await?;
        let open = self.store.open_runs().await?;
        self.next_run_seq =
            open.iter().map(|r| r.seq + 1).max().unwrap_or(1).max(self.next_run_seq);
        for run in &open {
            self.runs.insert(run.id.clone(), run.clone());
        }
        for run in open {
            let action = plan(&run, &self.tools);
            tracing::info!(run = %run.id, ?action, "recovering a run");
            let result = match action {
                RecoveryAction::Keep => Ok(()),
                RecoveryAction::Resume => {
                    self.later(super::FollowUp::Continue(run.id.clone()));
                    Ok(())
                }
                RecoveryAction::Interrupt => {
                    let reason = "The answer was cut off when the browser stopped the engine.";
                    self.park(run.clone(), RunState::Interrupted, reason, &mut out).await
                }
                RecoveryAction::Dispatch(_) => {
                    self.later(super::FollowUp::Dispatch(run.id.clone()));
                    Ok(())
                }
                RecoveryAction::Replay(index) => {
                    let mut replay = run.clone();
                    replay.tools[index].status = ToolCallStatus::Pending;
                    self.runs.insert(replay.id.clone(), replay);
                    self.later(super::FollowUp::Dispatch(run.id.clone()));
                    Ok(())
                }
                RecoveryAction::ParkUncertain(_) => {
                    let reason = "The engine stopped while this action was running: it may or may not have happened.";
                    self.park(run.clone(), RunState::PausedUncertain, reason, &mut out).await
                }
            };
            if let Err(err) = result {
                self.fail_run(&run.id, &err.to_string(), &mut out).await;
            }
        }
        let threads: Vec<_> = self.runs.values().map(|r| r.thread_id.clone()).collect();
        for thread in threads {
            self.later(super::FollowUp::Schedule(thread));
        }
        self.drain(&mut out).await;
        Ok(out)
    }
}
