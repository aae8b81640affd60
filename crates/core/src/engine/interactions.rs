//! Tools that ask the user rather than the browser: `ask_user` (questions with suggested answers)
//! and `request_user_action` (a step only the user can do: sign in, a one-time code, a payment).
//! The run waits in `waiting_interaction` with the request in its record, so the question
//! survives a restart; `interaction.response` records the answer with its receipt, and the answer
//! goes back to the model as the call's result.

use panelot_protocol::AgentEvent;
use panelot_protocol::InteractionId;
use panelot_protocol::Op;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::InteractionRequestEvent;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::InteractionResolvedEvent;
use panelot_protocol::engine::InteractionResponse;
use panelot_protocol::engine::InteractionResponseParams;
use panelot_protocol::engine::PendingInteraction;
use panelot_protocol::engine::Question;
use panelot_protocol::engine::QuestionOption;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::ToolLevel;
use serde_json::json;

use super::Decision;
use super::Engine;
use super::FollowUp;
use super::InFlight;
use super::Outbox;
use super::ToolOutcome;
use super::run_ack;
use crate::store::InteractionRecord;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tools::ToolDescriptor;
use crate::tools::ToolEffect;

/// Asks the user questions.
pub const ASK_USER: &str = "ask_user";
/// Asks the user to do a step themselves.
pub const REQUEST_USER_ACTION: &str = "request_user_action";

/// The engine's own tools.
pub fn builtin_tools() -> Vec<ToolDescriptor> {
    let ask = ToolDescriptor::new(
        ASK_USER,
        "Ask the user 1-3 questions you need answered, each with 2-3 likely options. Call it \
         alone.",
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["questions"],
            "properties": {"questions": {"type": "array", "maxItems": 3, "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["question", "options"],
                "properties": {
                    "question": {"type": "string", "minLength": 1, "maxLength": 500},
                    "options": {"type": "array", "maxItems": 3, "items":
                        {"type": "string", "minLength": 1, "maxLength": 200}}
                }
            }}}
        }),
        ToolLevel::Builtin,
        ToolEffect::Read,
    );
    let action = ToolDescriptor::new(
        REQUEST_USER_ACTION,
        "Ask the user to do a step you must not or cannot (sign in, one-time code, payment, \
         captcha); say what and where.",
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["instruction"],
            "properties": {
                "instruction": {"type": "string", "minLength": 1, "maxLength": 1000},
                "tabId": {"type": "integer", "minimum": 0}
            }
        }),
        ToolLevel::Builtin,
        ToolEffect::Read,
    );
    vec![ask, action]
}

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

/// The request of an interaction tool call, or why the call is refused.
pub(crate) fn interaction_request(
    tool: &str,
    params: &serde_json::Value,
) -> Option<Result<InteractionRequestPayload, String>> {
    match tool {
        ASK_USER => Some(
            serde_json::from_value::<Vec<AskedQuestion>>(params["questions"].clone())
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

impl<S: Store> Engine<S> {
    /// Parks the run on a question to the user.
    pub(crate) async fn ask_interaction(
        &mut self,
        mut run: RunRecord,
        index: usize,
        request: InteractionRequestPayload,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let id = super::threads::fresh_id(&*self.ids, "q", InteractionId::new)?;
        let item = run.tools[index].item_id.clone();
        run.interaction =
            Some(InteractionRecord { id: id.clone(), tool_index: index, request: request.clone() });
        Self::transition(&mut run, RunState::WaitingInteraction, self.clock.now_ms())?;
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
        self.commit(unit).await?;
        let event = InteractionRequestEvent {
            thread_id: run.thread_id.clone(),
            turn_id: run.turn_id.clone(),
            interaction_id: id,
            item_id: Some(item),
            request,
        };
        self.broadcast(AgentEvent::InteractionRequest(event), out);
        Ok(())
    }

    /// Interactions waiting in a thread, for its snapshot.
    pub(crate) fn pending_interactions(&self, thread: &ThreadId) -> Vec<PendingInteraction> {
        self.runs
            .values()
            .filter(|r| &r.thread_id == thread)
            .filter_map(|r| {
                r.interaction.as_ref().map(|i| PendingInteraction {
                    interaction_id: i.id.clone(),
                    turn_id: r.turn_id.clone(),
                    request: i.request.clone(),
                })
            })
            .collect()
    }

    /// `interaction.response`: the answer's audit node, the run's next state and the receipt in
    /// one unit; the answer reaches the model as the call's result once that is durable.
    pub(super) async fn respond_to_interaction(
        &mut self,
        op: &Op,
        p: &InteractionResponseParams,
    ) -> Result<Decision, StoreError> {
        let Some(mut run) = self
            .runs
            .values()
            .find(|r| r.interaction.as_ref().is_some_and(|i| i.id == p.interaction_id))
            .cloned()
        else {
            return Ok(Decision::rejected(
                op,
                ErrorCode::InvalidCommand,
                format!("interaction {} is not waiting for an answer", p.interaction_id),
            ));
        };
        let Some(interaction) = run.interaction.take() else {
            return Err(StoreError::Integrity(format!("run {} has no interaction", run.id)));
        };
        let now = self.clock.now_ms();
        let index = interaction.tool_index;
        let response = serde_json::to_value(&p.response)
            .map_err(|err| StoreError::Corrupt(err.to_string()))?;
        let mut unit = UnitOfWork::new();
        let answer =
            NodeBody::InteractionResponse { interaction_id: interaction.id.to_string(), response };
        self.audit_node(&run, answer, now, |_| {}, &mut unit).await?;
        Self::transition(&mut run, RunState::ExecutingTool, now)?;
        run.tools[index].status = ToolCallStatus::Dispatched;
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
        let effect = self.new_effect(InFlight::Tool(run.id.clone(), index));
        let outcome = answer_for_model(&p.response);
        let resolved = AgentEvent::InteractionResolved(InteractionResolvedEvent {
            thread_id: run.thread_id.clone(),
            interaction_id: interaction.id,
        });
        Ok(Decision {
            unit,
            answer: run_ack(op, &run.thread_id, &run.id),
            events: vec![resolved],
            then: vec![FollowUp::Outcome(effect, outcome, super::Author::Tool)],
        })
    }
}

/// What the model reads of the user's answer. A refusal is not a tool failure.
fn answer_for_model(response: &InteractionResponse) -> ToolOutcome {
    let content = match response {
        InteractionResponse::Submit { value } => format!("The user answered: {value}"),
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
    ToolOutcome::Success { content, details: None }
}
