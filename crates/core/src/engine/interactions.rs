//! Tools that make the run wait: for the user (`ask_user`, questions with suggested answers;
//! `request_user_action`, a step only the user can do: sign in, a one-time code, a payment), for
//! a page (`watch_page`: until some text appears or goes, or the URL gets somewhere) or for a
//! time (`schedule_resume`). The run waits in `waiting_interaction` with the request in its
//! record, so the wait survives a restart (a watch is started again, a time is kept);
//! `interaction.response` records the user's answer with its receipt (for a wait: go on now, or
//! stop waiting), and what ended the wait goes back to the model as the call's result.

use panelot_protocol::AgentEvent;
use panelot_protocol::InteractionId;
use panelot_protocol::Op;
use panelot_protocol::engine::InteractionRequestEvent;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::InteractionResolvedEvent;
use panelot_protocol::engine::InteractionResponse;
use panelot_protocol::engine::InteractionResponseParams;
use panelot_protocol::engine::Question;
use panelot_protocol::engine::QuestionOption;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::WatchCondition;

use super::approvals::audit_node;
use super::decision::Decision;
use super::decision::EffectRequest;
use super::decision::FollowUp;
use super::decision::ResultBody;
use super::decision::Step;
use super::decision::invocation;
use super::decision::run_ack;
use super::machine::Cx;
use super::machine::chain::ThreadState;
use super::outbox::ToolOutcome;
use crate::runs::transitions::move_run;
use crate::store::InteractionRecord;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::ToolCallRecord;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// Asks the user questions.
pub const ASK_USER: &str = "ask_user";
/// Asks the user to do a step themselves.
pub const REQUEST_USER_ACTION: &str = "request_user_action";
/// Waits for a page.
pub const WATCH_PAGE: &str = "watch_page";
/// Waits for a time.
pub const SCHEDULE_RESUME: &str = "schedule_resume";

/// How long `watch_page` waits when the model names no time.
const DEFAULT_WATCH_SECONDS: u64 = 300;

/// A question as the model writes it: options are plain answers (each its own label and value)
/// and ids are given by position, which keeps the tool's schema small.
#[derive(serde::Deserialize)]
struct AskedQuestion {
    question: String,
    options: Vec<String>,
}

fn question((index, asked): (usize, AskedQuestion)) -> Question {
    Question {
        id: format!("q{}", index + 1),
        question: asked.question,
        options: asked
            .options
            .into_iter()
            .map(|option| QuestionOption {
                value: option.clone(),
                label: option,
                description: None,
            })
            .collect(),
    }
}

/// The request of an interaction tool call made at `now_ms`, or why the call is refused; `None`
/// for other tools. A watch watches the tab its call was resolved to.
pub(crate) fn request_of(
    call: &ToolCallRecord,
    now_ms: u64,
) -> Option<Result<InteractionRequestPayload, String>> {
    let params = &call.params;
    let seconds = |name: &str| params[name].as_u64();
    match call.tool_name.as_str() {
        ASK_USER => Some(
            panelot_protocol::from_value::<Vec<AskedQuestion>>(params["questions"].clone())
                .map_err(|err| format!("the questions are not valid: {err}"))
                .and_then(|questions| match questions.len() {
                    1..=3 => Ok(InteractionRequestPayload::AskUser {
                        questions: questions.into_iter().enumerate().map(question).collect(),
                    }),
                    n => Err(format!("ask one to three questions, not {n}")),
                }),
        ),
        REQUEST_USER_ACTION => Some(Ok(InteractionRequestPayload::RequestUserAction {
            instruction: params["instruction"].as_str().unwrap_or_default().to_owned(),
            tab_id: params["tabId"].as_u64().and_then(|t| u32::try_from(t).ok()),
        })),
        WATCH_PAGE => Some(watch_of(call, now_ms)),
        SCHEDULE_RESUME => Some(Ok(InteractionRequestPayload::ScheduleResume {
            resume_at_ms: now_ms.saturating_add(seconds("delaySeconds").unwrap_or(0) * 1000),
            reason: params["reason"].as_str().unwrap_or_default().to_owned(),
        })),
        _ => None,
    }
}

fn watch_of(call: &ToolCallRecord, now_ms: u64) -> Result<InteractionRequestPayload, String> {
    let params = &call.params;
    let condition = match params["condition"].as_str() {
        Some("text") => WatchCondition::Text,
        Some("text_gone") => WatchCondition::TextGone,
        Some("url") => WatchCondition::Url,
        _ => return Err("condition is one of text, text_gone, url".to_owned()),
    };
    let Some(target) = &call.target else {
        return Err("there is no tab to watch".to_owned());
    };
    let seconds = params["timeoutSeconds"].as_u64().unwrap_or(DEFAULT_WATCH_SECONDS);
    Ok(InteractionRequestPayload::WatchPage {
        tab_id: Some(target.tab),
        condition,
        value: params["value"].as_str().unwrap_or_default().to_owned(),
        deadline_at_ms: now_ms.saturating_add(seconds * 1000),
    })
}

/// The host effect that watches the page of a run waiting on `watch_page`; `None` for any
/// other wait. Started when the run parks, and again after a restart.
pub(crate) fn watch_effect(run: &RunRecord) -> Option<EffectRequest> {
    let interaction = run.interaction.as_ref()?;
    if !matches!(interaction.request, InteractionRequestPayload::WatchPage { .. }) {
        return None;
    }
    let index = interaction.tool_index;
    let call = invocation(run, run.tools.get(index)?.clone(), None);
    Some(EffectRequest::Watch { run: run.id.clone(), index, call })
}

/// Parks the run on a question to the user; `mcp_resume` as [`InteractionRecord::mcp_resume`].
pub(crate) fn ask(
    cx: Cx<'_>,
    mut run: RunRecord,
    index: usize,
    request: InteractionRequestPayload,
    mcp_resume: Option<String>,
) -> Result<Step, StoreError> {
    let id = cx.env.id("q", InteractionId::new)?;
    let item = run.tools[index].item_id.clone();
    run.interaction = Some(InteractionRecord {
        id: id.clone(),
        tool_index: index,
        request: request.clone(),
        mcp_resume,
    });
    move_run(&mut run, RunState::WaitingInteraction, cx.env.now_ms())?;
    let event = AgentEvent::InteractionRequest(InteractionRequestEvent {
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        interaction_id: id,
        item_id: Some(item),
        request,
    });
    let mut step = Step::default();
    step.events.push(event);
    step.effects.extend(watch_effect(&run));
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

/// `interaction.response`: the answer's audit node, the run's next state and the receipt in one
/// unit; the answer reaches the model as the call's result once that is durable. An MCP
/// server's question is answered to the server instead: its call goes on.
pub(crate) fn respond(
    cx: Cx<'_>,
    state: Option<ThreadState>,
    run: RunRecord,
    op: &Op,
    p: &InteractionResponseParams,
) -> Result<Decision, StoreError> {
    let Some(interaction) = &run.interaction else {
        return Err(StoreError::Integrity(format!("run {} has no interaction", run.id)));
    };
    if matches!(interaction.request, InteractionRequestPayload::McpElicitation { .. }) {
        let answer = run_ack(op, &run.thread_id, &run.id);
        let Step { unit, events, effects, then } = settle_elicitation(cx, state, run, &p.response)?;
        return Ok(Decision { unit, answer, events, effects, then });
    }
    let outcome = answer_for_model(&interaction.request, &p.response);
    let answer = run_ack(op, &run.thread_id, &run.id);
    let Step { unit, events, effects, then } = settle(cx, state, run, &p.response, outcome)?;
    Ok(Decision { unit, answer, events, effects, then })
}

/// Ends the run's wait with `response` (the user's, or what ended a wait by itself): its audit
/// node, the run's next state, and `outcome` as the call's result once that is durable. A watch
/// still running is stopped.
pub(crate) fn settle(
    cx: Cx<'_>,
    state: Option<ThreadState>,
    run: RunRecord,
    response: &InteractionResponse,
    outcome: ToolOutcome,
) -> Result<Step, StoreError> {
    let (run, interaction, unit, resolved) = close(cx, state, run, response)?;
    let mut then = Vec::new();
    if matches!(interaction.request, InteractionRequestPayload::WatchPage { .. }) {
        then.push(FollowUp::AbortRun(run.id.clone()));
    }
    then.push(FollowUp::WriteResult {
        run: run.id,
        index: interaction.tool_index,
        body: ResultBody::Outcome(outcome),
    });
    Ok(Step { unit, events: vec![resolved], effects: Vec::new(), then })
}

/// Ends the run's wait on an MCP server's question with `response` (the user's, or a timeout
/// when the call ended first): its audit node and the run back to its call, which goes on at
/// the server; the answer goes to the server (`FollowUp::McpElicitAnswered`).
pub(crate) fn settle_elicitation(
    cx: Cx<'_>,
    state: Option<ThreadState>,
    run: RunRecord,
    response: &InteractionResponse,
) -> Result<Step, StoreError> {
    let (run, interaction, unit, resolved) = close(cx, state, run, response)?;
    let resume = interaction.mcp_resume.map(|point| (run.id, interaction.tool_index, point));
    let then = vec![FollowUp::McpElicitAnswered {
        interaction: interaction.id,
        response: response.clone(),
        resume,
    }];
    Ok(Step { unit, events: vec![resolved], effects: Vec::new(), then })
}

/// Takes the run's interaction away with `response`: the answer's audit node and the run back
/// at its call in one unit, and the event that takes the card down.
fn close(
    cx: Cx<'_>,
    state: Option<ThreadState>,
    mut run: RunRecord,
    response: &InteractionResponse,
) -> Result<(RunRecord, InteractionRecord, UnitOfWork, AgentEvent), StoreError> {
    let Some(interaction) = run.interaction.take() else {
        return Err(StoreError::Integrity(format!("run {} has no interaction", run.id)));
    };
    let now = cx.env.now_ms();
    let recorded =
        panelot_protocol::to_value(response).map_err(|err| StoreError::Corrupt(err.to_string()))?;
    let mut unit = UnitOfWork::new();
    if let Some(state) = state {
        let answer = NodeBody::InteractionResponse {
            interaction_id: interaction.id.to_string(),
            response: recorded,
        };
        audit_node(cx, &run, state, answer, now, None, &mut unit)?;
    }
    move_run(&mut run, RunState::ExecutingTool, now)?;
    unit.push(WriteOp::PutRun(Box::new(run.clone())));
    let resolved = AgentEvent::InteractionResolved(InteractionResolvedEvent {
        thread_id: run.thread_id.clone(),
        interaction_id: interaction.id.clone(),
    });
    Ok((run, interaction, unit, resolved))
}

/// What ends a wait that is due at `now` by itself: a schedule's time came, a watch gave up.
pub(crate) fn due_outcome(
    request: &InteractionRequestPayload,
) -> Option<(InteractionResponse, ToolOutcome)> {
    match request {
        InteractionRequestPayload::ScheduleResume { reason, .. } => Some((
            InteractionResponse::Timeout { value: None },
            ToolOutcome::done(format!("It is time to continue: {reason}")),
        )),
        InteractionRequestPayload::WatchPage { condition, value, .. } => Some((
            InteractionResponse::Timeout { value: None },
            ToolOutcome::done(format!(
                "Stopped waiting: the time ran out before {}.",
                watched_for(*condition, value)
            )),
        )),
        InteractionRequestPayload::AskUser { .. }
        | InteractionRequestPayload::RequestUserAction { .. }
        | InteractionRequestPayload::McpElicitation { .. } => None,
    }
}

/// What a watch waits for, in words: "the page showed “Paid”".
fn watched_for(condition: WatchCondition, value: &str) -> String {
    match condition {
        WatchCondition::Text => format!("the page showed \"{value}\""),
        WatchCondition::TextGone => format!("\"{value}\" left the page"),
        WatchCondition::Url => format!("the tab's URL contained \"{value}\""),
    }
}

/// What the model reads once its watch saw what it waited for (or could not watch).
pub(crate) fn watch_outcome(request: &InteractionRequestPayload, seen: ToolOutcome) -> ToolOutcome {
    let InteractionRequestPayload::WatchPage { condition, value, .. } = request else {
        return seen;
    };
    if seen.is_ok() {
        // Capitalized in ASCII (each sentence starts with an ASCII letter or quote of its own):
        // char::to_uppercase compiled Unicode's case table, 14 KB of engine wasm, for this alone.
        let mut what = watched_for(*condition, value);
        if let Some(first) = what.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        return ToolOutcome::done(format!("{what}. Read the page again before acting on it."));
    }
    seen
}

/// What the model reads of the user's answer. A refusal is not a tool failure. A step handed
/// to the user comes back as done, never with what they typed (the card sends no value the
/// model needs), and with the reminder that the page moved on under the model.
fn answer_for_model(
    request: &InteractionRequestPayload,
    response: &InteractionResponse,
) -> ToolOutcome {
    let content = match response {
        InteractionResponse::Submit { .. }
            if matches!(request, InteractionRequestPayload::ScheduleResume { .. }) =>
        {
            "The user asked to continue now.".to_owned()
        }
        InteractionResponse::Cancel { .. }
            if matches!(request, InteractionRequestPayload::ScheduleResume { .. }) =>
        {
            "The user called off the wait; do not schedule it again unless they ask.".to_owned()
        }
        InteractionResponse::Submit { .. } | InteractionResponse::Cancel { .. }
            if matches!(request, InteractionRequestPayload::WatchPage { .. }) =>
        {
            "The user stopped the wait. Read the page again before acting on it.".to_owned()
        }
        InteractionResponse::Submit { .. }
            if matches!(request, InteractionRequestPayload::RequestUserAction { .. }) =>
        {
            "The user says the step is done. The page may have changed: read it again before \
             acting on it."
                .to_owned()
        }
        InteractionResponse::Submit { value } => format!("The user answered: {value}"),
        InteractionResponse::Cancel { note }
            if matches!(request, InteractionRequestPayload::RequestUserAction { .. }) =>
        {
            match note {
                Some(note) => format!("The user skipped the step: {note}"),
                None => "The user skipped the step.".to_owned(),
            }
        }
        InteractionResponse::Cancel { note: Some(note) } => {
            format!("The user declined to answer: {note}")
        }
        InteractionResponse::Cancel { note: None } => "The user declined to answer.".to_owned(),
        InteractionResponse::Timeout { value: Some(value) } => {
            format!("The user did not answer in time; the default answer is {value}")
        }
        InteractionResponse::Timeout { value: None } => {
            "The user did not answer in time.".to_owned()
        }
    };
    ToolOutcome::done(content)
}
