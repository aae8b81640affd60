//! Tools that ask the user rather than the browser: `ask_user` (questions with suggested answers)
//! and `request_user_action` (a step only the user can do: sign in, a one-time code, a payment).
//! The run waits in `waiting_interaction` with the request in its record, so the question
//! survives a restart; `interaction.response` records the answer with its receipt, and the answer
//! goes back to the model as the call's result.

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

use super::approvals::audit_node;
use super::decision::Decision;
use super::decision::FollowUp;
use super::decision::ResultBody;
use super::decision::Step;
use super::decision::run_ack;
use super::machine::Cx;
use super::machine::chain::ThreadState;
use super::outbox::ToolOutcome;
use crate::runs::transitions::move_run;
use crate::store::InteractionRecord;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// Asks the user questions.
pub const ASK_USER: &str = "ask_user";
/// Asks the user to do a step themselves.
pub const REQUEST_USER_ACTION: &str = "request_user_action";

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

/// The request of an interaction tool call, or why the call is refused; `None` for other tools.
pub(crate) fn request_of(
    tool: &str,
    params: &serde_json::Value,
) -> Option<Result<InteractionRequestPayload, String>> {
    match tool {
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
        _ => None,
    }
}

/// Parks the run on a question to the user.
pub(crate) fn ask(
    cx: Cx<'_>,
    mut run: RunRecord,
    index: usize,
    request: InteractionRequestPayload,
) -> Result<Step, StoreError> {
    let id = cx.env.id("q", InteractionId::new)?;
    let item = run.tools[index].item_id.clone();
    run.interaction =
        Some(InteractionRecord { id: id.clone(), tool_index: index, request: request.clone() });
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
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

/// `interaction.response`: the answer's audit node, the run's next state and the receipt in one
/// unit; the answer reaches the model as the call's result once that is durable.
pub(crate) fn respond(
    cx: Cx<'_>,
    state: Option<ThreadState>,
    mut run: RunRecord,
    op: &Op,
    p: &InteractionResponseParams,
) -> Result<Decision, StoreError> {
    let Some(interaction) = run.interaction.take() else {
        return Err(StoreError::Integrity(format!("run {} has no interaction", run.id)));
    };
    let now = cx.env.now_ms();
    let index = interaction.tool_index;
    let response = panelot_protocol::to_value(&p.response)
        .map_err(|err| StoreError::Corrupt(err.to_string()))?;
    let mut unit = UnitOfWork::new();
    if let Some(state) = state {
        let answer =
            NodeBody::InteractionResponse { interaction_id: interaction.id.to_string(), response };
        audit_node(cx, &run, state, answer, now, None, &mut unit)?;
    }
    move_run(&mut run, RunState::ExecutingTool, now)?;
    unit.push(WriteOp::PutRun(Box::new(run.clone())));
    let resolved = AgentEvent::InteractionResolved(InteractionResolvedEvent {
        thread_id: run.thread_id.clone(),
        interaction_id: interaction.id,
    });
    Ok(Decision {
        unit,
        answer: run_ack(op, &run.thread_id, &run.id),
        events: vec![resolved],
        effects: Vec::new(),
        then: vec![FollowUp::WriteResult {
            run: run.id.clone(),
            index,
            body: ResultBody::Outcome(answer_for_model(&interaction.request, &p.response)),
        }],
    })
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
