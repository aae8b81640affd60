//! A tool call's result is written with the run's counters and route in one unit. The safety nets
//! (failure reminder and breaker, stuck detector) speak through the engine's note on the result,
//! which the model reads after what the tool said and outside its fence. Page and MCP content is
//! remembered as taint, by the URL it came from; a write that carried its tab somewhere denied
//! blocks that tab for the rest of the run.

use panelot_protocol::AgentEvent;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::TabRole;
use panelot_protocol::engine::TabsUpdatedEvent;
use panelot_protocol::engine::TouchedTab;

use super::Cx;
use super::chain::Chain;
use super::chain::ThreadState;
use super::stream::complete;
use crate::engine::approvals;
use crate::engine::decision::FollowUp;
use crate::engine::decision::Refused;
use crate::engine::decision::ResultBody;
use crate::engine::decision::Step;
use crate::engine::outbox::FailureCause;
use crate::engine::outbox::ToolStatus;
use crate::gatekeeper::SensitiveOrigins;
use crate::runs::transitions::move_run;
use crate::snapshot::tool_result_view;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::WriteOp;
use crate::tools::ToolEffect;

/// Consecutive tool failures after which the model is reminded to change course.
pub const FAILURE_REMINDER_AT: u32 = 3;
/// Consecutive tool failures after which tools are switched off for one last answer.
pub const FAILURE_BREAKER_AT: u32 = 5;
/// Calls remembered by the stuck detector.
const STUCK_WINDOW: usize = 6;
/// Identical calls in a row that count as stuck.
const STUCK_REPEATS: usize = 3;

/// What a result says, and to whom.
struct Said {
    ok: bool,
    outcome: CallOutcome,
    /// For the model, fenced as the tool's provenance says.
    content: String,
    /// The engine's words.
    notes: Vec<String>,
    /// Whether a failure counts towards the breaker.
    counts: bool,
}

/// Writes the result of the run's call at `index`; `sensitive` is the denylist a write's
/// landing page is checked against.
pub(crate) fn write(
    cx: Cx<'_>,
    mut run: RunRecord,
    state: ThreadState,
    index: usize,
    body: ResultBody,
    sensitive: &SensitiveOrigins,
) -> Result<Step, StoreError> {
    if index >= run.tools.len() || run.tools[index].status == ToolCallStatus::Done {
        return Ok(Step::default());
    }
    // The host could not reach the site: the user is asked once for access (the card asks the
    // browser for it), and the call, which never ran, runs again if given.
    if let ResultBody::Outcome(outcome) = &body
        && let ToolStatus::Failed { cause: FailureCause::NoHostAccess { origin }, .. } =
            &outcome.status
        && !run.tools[index].host_permission_asked
    {
        let origin = origin.clone();
        let call = &mut run.tools[index];
        call.host_permission_asked = true;
        call.status = ToolCallStatus::Pending;
        call.approved = false;
        call.target = None;
        return approvals::ask(cx, run, index, vec![ApprovalFlag::HostPermission], Some(origin));
    }
    // A synthetic write that visibly did not take runs once more with trusted input, as a call
    // of its own: checked, re-targeted, judged (and asked about) again.
    if let ResultBody::Outcome(outcome) = &body
        && let ToolStatus::Failed { cause: FailureCause::NotEffective, message } = &outcome.status
        && let Some(escalated) = escalation(cx, &run, index, message)
    {
        run.tools[index] = escalated;
        let mut step = Step::then(FollowUp::Dispatch(run.id.clone()));
        step.unit.push(WriteOp::PutRun(Box::new(run)));
        return Ok(step);
    }
    // The call may have acted and cannot say: the user decides, as after a restart.
    if let ResultBody::Outcome(outcome) = &body
        && let ToolStatus::Failed { cause: FailureCause::Uncertain, message } = &outcome.status
    {
        let reason = format!("This action may or may not have happened: {message}");
        return super::end::park(run, RunState::PausedUncertain, &reason, cx.env.now_ms());
    }
    // Content that came from a place no call may read (a fetch redirected to a sensitive site)
    // never reaches the model.
    let body = match &body {
        ResultBody::Outcome(outcome) => {
            match outcome.source.as_deref().and_then(|url| off_limits(url, sensitive)) {
                Some(reason) => ResultBody::Refused {
                    message: format!(
                        "the request ended at {reason}; Panelot withheld what it sent. Do not \
                         retry it."
                    ),
                    refused: Refused::Denied,
                },
                None => body,
            }
        }
        _ => body,
    };
    let now = cx.env.now_ms();
    let call = run.tools[index].clone();
    let tool = cx.tools.get(&call.tool_name);
    let touched_before = run.route.touched.clone();
    let mut details = None;
    let mut source = None;
    let said = match body {
        ResultBody::Outcome(outcome) => {
            let ok = outcome.is_ok();
            let content = outcome.text();
            let mut notes = Vec::new();
            source = outcome.page.as_ref().map(|page| page.url.clone()).or(outcome.source);
            let wrote = tool.is_some_and(|t| t.effect == ToolEffect::Write);
            if let Some(target) = &call.target {
                // A frame's page is not the tab's: the tab's title stays as last seen.
                let title = if target.frame_of.is_some() { "" } else { target.title.as_str() };
                run.route.touch(target.tab, target.tab_url(), title, wrote);
            }
            if let Some(tab) = outcome.opened_tab {
                run.route.opened(tab);
                run.route.touch(tab, "", "", false);
            }
            if let Some(page) = &outcome.page {
                run.route.touch(page.tab, &page.url, "", false);
                if let Some(document) = &page.document_id {
                    run.route.snapshot_taken(page.tab, document);
                }
                if wrote && let Some(reason) = off_limits(&page.url, sensitive) {
                    run.route.block(page.tab);
                    notes.push(format!(
                        "This action took tab {} to {reason}. Panelot will not act on that tab \
                         again in this turn; tell the user.",
                        page.tab
                    ));
                }
            }
            details = outcome.details;
            let outcome = if ok { CallOutcome::Done } else { CallOutcome::Failed };
            Said { ok, outcome, content, notes, counts: true }
        }
        ResultBody::Refused { message, refused } => Said {
            ok: false,
            outcome: match refused {
                Refused::Check => CallOutcome::Failed,
                Refused::Denied => CallOutcome::Denied,
                Refused::Declined => CallOutcome::Declined,
                Refused::Paused => CallOutcome::NotRun,
            },
            content: String::new(),
            notes: match refused {
                // What happened first, then what the model should do about it (a step shows
                // the first paragraph only).
                Refused::Declined => vec![
                    format!("Error: {message}"),
                    "Do not try this call again unless the user asks.".to_owned(),
                ],
                Refused::Check | Refused::Denied => vec![format!("Error: {message}")],
                Refused::Paused => vec![message],
            },
            counts: refused == Refused::Check,
        },
        ResultBody::MarkedDone => Said {
            ok: true,
            outcome: CallOutcome::Done,
            content: String::new(),
            notes: vec!["The user checked and says this action was done.".to_owned()],
            counts: true,
        },
    };
    let Said { ok, outcome, content, mut notes, counts } = said;
    if let Some(first) = &call.escalated_from {
        let from = ESCALATIONS.iter().find(|(_, to)| *to == call.tool_name).map_or("", |e| e.0);
        let tool = &call.tool_name;
        let why = format!("`{from}` did not take ({first}), so Panelot ran `{tool}` once instead.");
        notes.insert(0, why);
    }
    let counters = &mut run.counters;
    if ok {
        counters.consecutive_failures = 0;
    } else if counts {
        counters.consecutive_failures += 1;
        if counters.consecutive_failures == FAILURE_REMINDER_AT {
            notes.push("Several tool calls in a row have failed. Stop and rethink: read the errors, check the page again, or try another way.".to_owned());
        }
        if counters.consecutive_failures >= FAILURE_BREAKER_AT && !counters.tools_disabled {
            counters.tools_disabled = true;
            notes.push("Too many tool calls failed: tools are now switched off. Answer the user with what you have and say what did not work.".to_owned());
        }
    }
    let fingerprint =
        format!("{}:{}", call.tool_name, panelot_protocol::canonical_json(&call.params));
    counters.recent_calls.push(fingerprint.clone());
    let excess = counters.recent_calls.len().saturating_sub(STUCK_WINDOW);
    counters.recent_calls.drain(..excess);
    let repeats = counters.recent_calls.iter().rev().take_while(|f| **f == fingerprint).count();
    if repeats >= STUCK_REPEATS {
        notes.push(format!("You have made this exact call {repeats} times in a row. It is not making progress; do something different."));
    }
    // What a page or MCP server said is remembered as taint before the model reads it, with the
    // URL it came from.
    let source = source.or_else(|| call.target.as_ref().map(|t| t.url.clone()));
    if let Some(tool) = tool
        && matches!(tool.result_provenance, Provenance::Page | Provenance::Mcp)
    {
        let from = match tool.result_provenance {
            Provenance::Mcp => format!("mcp:{}", call.tool_name),
            _ => source.clone().unwrap_or_default(),
        };
        run.taint.record(&content, tool.result_provenance, &from);
    }
    let mut chain = Chain::at_leaf(&state, &run.turn_id, now);
    let body = NodeBody::ToolResult {
        item_id: call.item_id.clone(),
        call_id: call.call_id.clone(),
        ok,
        content_for_model: content,
        details,
        engine_note: (!notes.is_empty()).then(|| notes.join("\n\n")),
        source,
        outcome,
        target: call.target.as_ref().map(crate::target::ResolvedTarget::view),
    };
    let result = tool_result_view(&body);
    chain.push_new(cx.env, body)?;
    run.tools[index].status = ToolCallStatus::Done;
    move_run(&mut run, RunState::ExecutingTool, now)?;
    let mut step = Step::default();
    step.events.push(complete(&run.thread_id, call.item_id, Some(call.node_id), result));
    if run.route.touched != touched_before {
        step.events.push(tabs_updated(&run));
    }
    step.then.push(FollowUp::Dispatch(run.id.clone()));
    chain.write_with(state.meta, &mut step.unit);
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

/// The synthetic write that escalates, and the trusted tool it becomes.
const ESCALATIONS: &[(&str, &str)] = &[("type", "type_trusted")];

/// The call at `index` as its trusted escalation, when it has one the turn offers and was not
/// escalated before: the parameters the trusted tool takes, pending, unjudged and untargeted,
/// so it goes through every check again. The user's approval of the first call does not carry
/// over: trusted input is another way of acting.
fn escalation(
    cx: Cx<'_>,
    run: &RunRecord,
    index: usize,
    first: &str,
) -> Option<crate::store::ToolCallRecord> {
    let call = &run.tools[index];
    let (_, trusted) = ESCALATIONS.iter().find(|(from, _)| *from == call.tool_name)?;
    let tool = cx.tools.get(trusted)?;
    let levels = crate::engine::presets::tool_levels(run);
    if call.escalated_from.is_some() || !crate::tools::offered(tool.level, levels.as_deref()) {
        return None;
    }
    let takes = tool.parameters.get("properties")?.as_object()?;
    let params: serde_json::Map<_, _> = call
        .params
        .as_object()?
        .iter()
        .filter(|(name, _)| takes.contains_key(*name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    Some(crate::store::ToolCallRecord {
        tool_name: (*trusted).to_owned(),
        params: serde_json::Value::Object(params),
        status: ToolCallStatus::Pending,
        dispatches: 0,
        approved: false,
        host_permission_asked: false,
        target: None,
        escalated_from: Some(first.to_owned()),
        ..call.clone()
    })
}

/// `tabs.updated`: the tabs the run acted on, for the thread's views (an audit, never a
/// permission).
fn tabs_updated(run: &RunRecord) -> AgentEvent {
    let tabs = run
        .route
        .touched
        .iter()
        .map(|seen| TouchedTab {
            tab_id: seen.tab,
            url: seen.url.clone(),
            title: seen.title.clone(),
            role: if run.route.opened.contains(&seen.tab) {
                TabRole::Created
            } else if seen.wrote {
                TabRole::Driven
            } else {
                TabRole::Read
            },
        })
        .collect();
    AgentEvent::TabsUpdated(TabsUpdatedEvent {
        thread_id: run.thread_id.clone(),
        tabs,
        default_tab_id: run.route.tab,
    })
}

/// Why a page at `url` is off limits for a run's actions, in words; `None` when it is not.
pub(crate) fn off_limits(url: &str, sensitive: &SensitiveOrigins) -> Option<String> {
    let origin = panelot_protocol::Origin::parse(url).ok()?;
    if origin.scheme.is_dangerous() {
        return Some(format!("a {}: URL", origin.scheme.name()));
    }
    if sensitive.find(&origin).is_some() {
        return Some(format!("{origin}, a sensitive site"));
    }
    let imitated = origin.look_alike()?;
    sensitive
        .find(&imitated)
        .map(|_| format!("{origin}, which imitates {imitated}, a sensitive site"))
}
