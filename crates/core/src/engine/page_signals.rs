//! What the user does in a page a run acts on: the page indicator's Stop and Pause, and taking
//! over the tab (a real mouse or key press of the user there). The host hears them in the page
//! and hands them in as [`PageSignal`]s, checked here against the run's own record: only a run
//! at work that writes to (or wrote to) that tab in this turn takes them.
//!
//! Stop ends the turn as the panel's stop does. Pause and a takeover ask the run to pause: a
//! call already running finishes (a write is never cut in half), a model answer still streaming
//! finishes too, the calls it asked for that have not run yet do not run, and the run parks as
//! `paused_by_user` before its next model call, with a notice the user resumes from.

use panelot_protocol::RunId;
use panelot_protocol::engine::RunState;

use super::decision::EffectRequest;
use super::decision::Step;
use super::outbox::Effect;
use super::outbox::IndicatorState;
use super::reads::Reads;
use super::turns;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tools::catalog;
use crate::tools::catalog::Access;

/// The user did something in a page a run acts on, as the host heard it from that page's
/// indicator (the host checked that the message came from its own script in the tab's top
/// frame).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSignal {
    /// The tab it came from.
    pub tab: u32,
    /// The run the indicator was shown for.
    pub run_id: RunId,
    /// What the user did.
    pub kind: PageSignalKind,
}

/// What the user did in the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSignalKind {
    /// Pressed the indicator's Pause.
    Pause,
    /// Pressed the indicator's Stop.
    Stop,
    /// Pressed a mouse button or a key in the page, outside the indicator.
    TookOver,
}

/// The step a signal leads to: nothing when the run is not at work on that tab (ended, parked,
/// waiting for the user, or never wrote there), or is already pausing.
pub(crate) async fn decide<S: Store>(
    reads: &Reads<'_, S>,
    signal: &PageSignal,
) -> Result<Step, StoreError> {
    let Some(run) = reads.runs.get(&signal.run_id).cloned() else {
        return Ok(Step::default());
    };
    let Some(tab_name) = acting_on(&run, signal.tab).filter(|_| run.is_active()) else {
        return Ok(Step::default());
    };
    let waiting = matches!(run.state, RunState::WaitingApproval | RunState::WaitingInteraction);
    if waiting && signal.kind == PageSignalKind::TookOver {
        // Nothing acts while the run waits for the user: the page is theirs already. (Pause
        // still holds: the run pauses once the wait ends.) The bar, which said it was pausing
        // when it sent the takeover, says the run works again.
        let shown = Effect::Indicator {
            run_id: run.id.clone(),
            tabs: vec![signal.tab],
            state: IndicatorState::Working,
        };
        return Ok(Step { effects: vec![EffectRequest::Plain(shown)], ..Step::default() });
    }
    let notice = match signal.kind {
        PageSignalKind::Stop => return turns::interrupted(reads, run).await,
        PageSignalKind::Pause => {
            format!("You paused it from {tab_name}. Resume when you are ready.")
        }
        PageSignalKind::TookOver => {
            format!("You took over in {tab_name}. Resume when done.")
        }
    };
    if run.pause.is_some() {
        return Ok(Step::default());
    }
    let mut run = run;
    run.pause = Some(notice);
    run.updated_at_ms = reads.env.now_ms();
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(Step::writing(unit))
}

/// The tab's name for the user (its title, else its URL), when the run acts on `tab` in this
/// turn: a write of it acted there, or one is running there now.
fn acting_on(run: &RunRecord, tab: u32) -> Option<String> {
    let name = |title: &str, url: &str| {
        let shown = if title.trim().is_empty() { url } else { title };
        format!("\u{201c}{}\u{201d}", shown.trim())
    };
    if let Some(seen) = run.route.touched.iter().find(|seen| seen.tab == tab && seen.wrote) {
        return Some(name(&seen.title, &seen.url));
    }
    run.tools
        .iter()
        .filter(|call| call.status == ToolCallStatus::Dispatched && writes(&call.tool_name))
        .filter_map(|call| call.target.as_ref())
        .find(|target| target.tab == tab)
        .map(|target| name(&target.title, target.tab_url()))
}

fn writes(tool: &str) -> bool {
    catalog::classify(tool).access == Access::Write
}

/// The tabs a run's indicator may show in: those its writes acted on, and the tab of a write
/// still running.
pub(crate) fn indicator_tabs(run: &RunRecord) -> Vec<u32> {
    let mut tabs: Vec<u32> =
        run.route.touched.iter().filter(|seen| seen.wrote).map(|seen| seen.tab).collect();
    for call in &run.tools {
        if let Some(target) = &call.target
            && call.status != ToolCallStatus::Pending
            && writes(&call.tool_name)
            && !tabs.contains(&target.tab)
        {
            tabs.push(target.tab);
        }
    }
    tabs
}

/// What a run's indicator shows once the run stops acting (`None`: it still acts).
pub(crate) fn indicator_after(before: &RunRecord, after: &RunRecord) -> Option<IndicatorState> {
    if !before.is_active() || after.is_active() {
        return None;
    }
    Some(match after.state {
        RunState::PausedByUser => IndicatorState::Paused,
        RunState::Queued
        | RunState::Preparing
        | RunState::StreamingModel
        | RunState::WaitingApproval
        | RunState::WaitingInteraction
        | RunState::ExecutingTool
        | RunState::PausedBudget
        | RunState::PausedUncertain
        | RunState::Interrupted
        | RunState::Failed
        | RunState::Completed => IndicatorState::Gone,
    })
}
