//! A scripted "model" behind the mock provider that reads what it is sent.
//!
//! A test queues [`Step`]s; each turn request of the engine takes the next one, which sees the
//! request as a [`Transcript`] and returns the [`Reply`]. So a step can act on what the page
//! really showed: `t.find_ref("button", "Pay")` finds `button "Pay" [e5]` in the latest snapshot
//! the engine sent back, as a model would. Title requests (the engine names a new thread with a
//! call that offers no tools, beside its first turn) never take a step: they get a fixed title,
//! so a script is the same whether or not a turn is a thread's first.
//!
//! A request that finds the script empty gets a text answer saying so and is counted
//! ([`ScriptedModel::exhausted`]), which ends the turn visibly instead of hanging it.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::PoisonError;

use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::RecordedRequest;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;

/// One model answer, chosen from the request it answers.
pub type Step = Box<dyn FnOnce(&Transcript) -> Reply + Send>;

/// The answer a request gets when the script is empty.
pub const EXHAUSTED: &str = "[the scripted model has no step left]";

/// The title every new thread gets.
pub const TITLE: &str = "Scripted task";

/// The script, shared with the mock provider's responder. Clones share one script.
#[derive(Clone, Default)]
pub struct ScriptedModel {
    inner: Arc<Mutex<Script>>,
}

#[derive(Default)]
struct Script {
    steps: VecDeque<Step>,
    /// Turn requests answered from a step.
    served: usize,
    /// Turn requests that found no step.
    exhausted: usize,
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let script = self.lock();
        f.debug_struct("ScriptedModel")
            .field("pending", &script.steps.len())
            .field("served", &script.served)
            .field("exhausted", &script.exhausted)
            .finish()
    }
}

impl ScriptedModel {
    /// Makes this script answer every chat request `server` has no queued reply for.
    pub fn install(server: &MockProvider) -> Self {
        let model = ScriptedModel::default();
        let script = model.clone();
        server.set_responder(move |request| Some(script.answer(request)));
        model
    }

    /// Queues a step.
    pub fn push(&self, step: impl FnOnce(&Transcript) -> Reply + Send + 'static) {
        self.lock().steps.push_back(Box::new(step));
    }

    /// Queues a fixed reply.
    pub fn reply(&self, reply: Reply) {
        self.push(move |_| reply);
    }

    /// Steps not taken yet.
    pub fn pending(&self) -> usize {
        self.lock().steps.len()
    }

    /// Turn requests answered from a step so far.
    pub fn served(&self) -> usize {
        self.lock().served
    }

    /// Turn requests that found the script empty so far.
    pub fn exhausted(&self) -> usize {
        self.lock().exhausted
    }

    /// Drops the steps not taken yet.
    pub fn clear(&self) {
        self.lock().steps.clear();
    }

    fn answer(&self, request: &RecordedRequest) -> Reply {
        let transcript = Transcript::of(request);
        if !transcript.offers_tools() {
            return Reply::text(TITLE);
        }
        let step = {
            let mut script = self.lock();
            match script.steps.pop_front() {
                Some(step) => {
                    script.served += 1;
                    step
                }
                None => {
                    script.exhausted += 1;
                    return Reply::text(EXHAUSTED);
                }
            }
        };
        step(&transcript)
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A model request as the model reads it (OpenAI-compatible wire format, as the mock
/// connection speaks it).
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    body: Value,
}

impl Transcript {
    /// The request's body, parsed.
    pub fn of(request: &RecordedRequest) -> Self {
        Transcript { body: request.json.clone().unwrap_or(Value::Null) }
    }

    /// A transcript of a raw body, for tests of the parsing helpers.
    pub fn from_body(body: Value) -> Self {
        Transcript { body }
    }

    /// The names of the tools the request offers (both wire formats).
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["function"]["name"].as_str().or(tool["name"].as_str()))
            .map(str::to_owned)
            .collect()
    }

    /// Whether the request offers tools (turn requests do; title requests do not).
    pub fn offers_tools(&self) -> bool {
        self.body["tools"].as_array().is_some_and(|tools| !tools.is_empty())
    }

    fn messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The text of every message with `role`, in order.
    pub fn texts_of(&self, role: &str) -> Vec<String> {
        self.messages()
            .iter()
            .filter(|m| m["role"] == role)
            .map(|m| text_of(&m["content"]))
            .collect()
    }

    /// Every tool result the model has been sent, oldest first.
    pub fn tool_results(&self) -> Vec<String> {
        self.texts_of("tool")
    }

    /// The tool results after the last user message: the current turn's.
    pub fn turn_results(&self) -> Vec<String> {
        let messages = self.messages();
        let start = messages.iter().rposition(|m| m["role"] == "user").map_or(0, |i| i + 1);
        messages[start..]
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| text_of(&m["content"]))
            .collect()
    }

    /// The newest tool result.
    pub fn last_result(&self) -> Option<String> {
        self.tool_results().pop()
    }

    /// The ref of the element with `role` and accessible name `name` in the newest tool result
    /// that lists one.
    pub fn find_ref(&self, role: &str, name: &str) -> Option<String> {
        self.tool_results().iter().rev().find_map(|text| find_ref(text, role, name))
    }

    /// [`Transcript::find_ref`], or a reply that says what was missing (the turn then ends
    /// with that text, and the test sees it).
    pub fn act_on(&self, role: &str, name: &str, act: impl FnOnce(String) -> Reply) -> Reply {
        match self.find_ref(role, name) {
            Some(element) => act(element),
            None => Reply::text(format!(
                "[the scripted model found no {role} \"{name}\" in: {:?}]",
                self.last_result()
            )),
        }
    }

    /// Every tool call the model made in this conversation, oldest first, each with the result
    /// sent back for it.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        let messages = self.messages();
        let result_of = |id: &Value| {
            messages
                .iter()
                .find(|m| m["role"] == "tool" && m["tool_call_id"] == *id)
                .map(|m| text_of(&m["content"]))
        };
        messages
            .iter()
            .filter(|m| m["role"] == "assistant")
            .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
            .map(|call| ToolCall {
                name: call["function"]["name"].as_str().unwrap_or_default().to_owned(),
                arguments: call["function"]["arguments"].as_str().unwrap_or_default().to_owned(),
                result: result_of(&call["id"]),
            })
            .collect()
    }

    /// The whole body as JSON text.
    pub fn text(&self) -> String {
        self.body.to_string()
    }

    /// Every message's text, one after the other: what the model read.
    pub fn contents(&self) -> String {
        let texts: Vec<String> = self.messages().iter().map(|m| text_of(&m["content"])).collect();
        texts.join("\n")
    }
}

/// A tool call the model made, with what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The tool.
    pub name: String,
    /// Its arguments, as the model sent them.
    pub arguments: String,
    /// The result sent back, when one was.
    pub result: Option<String>,
}

/// The text of a message's `content`: a string, or the text parts of an array.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The ref of the first snapshot line naming an element with `role` and accessible name
/// `name` (`- button "Pay" [e5]`, attributes between the name and the ref allowed).
pub fn find_ref(snapshot: &str, role: &str, name: &str) -> Option<String> {
    let wanted = format!("{role} \"{name}\"");
    snapshot.lines().find_map(|line| {
        let line = line.trim_start().trim_start_matches("- ").trim_start_matches('\'');
        let rest = line.strip_prefix(&wanted)?;
        // The name must end where the quote does: `button "Pay"` is not `button "Pay later"`.
        if !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        last_ref(rest)
    })
}

/// The last `[eN]` of a line.
fn last_ref(line: &str) -> Option<String> {
    let at = line.rfind("[e")?;
    let inner = line[at + 1..].split(']').next()?;
    let digits = inner.strip_prefix('e')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| inner.to_owned())
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::Transcript;
    use super::find_ref;

    const SNAPSHOT: &str = r#"[tabId=7]
# snapshot doc-1
# title: Shop
- main
  - textbox "Card number" [required] [value=""] [e1]
  - button "Pay later" [e2]
  - button "Pay" [e3]
  - link "Terms" [e14]
- list [folded 12 lines, 4 interactive] [e20]"#;

    #[test]
    fn refs_are_found_by_role_and_exact_name() {
        assert_eq!(find_ref(SNAPSHOT, "button", "Pay").as_deref(), Some("e3"));
        assert_eq!(find_ref(SNAPSHOT, "button", "Pay later").as_deref(), Some("e2"));
        assert_eq!(find_ref(SNAPSHOT, "textbox", "Card number").as_deref(), Some("e1"));
        assert_eq!(find_ref(SNAPSHOT, "link", "Terms").as_deref(), Some("e14"));
        assert_eq!(find_ref(SNAPSHOT, "button", "Refund"), None);
        assert_eq!(find_ref(SNAPSHOT, "link", "Pay"), None);
    }

    #[test]
    fn the_transcript_reads_tool_results_and_title_requests() {
        let body = json!({
            "tools": [{"type": "function"}],
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "first"},
                {"role": "tool", "content": "old: - button \"Pay\" [e9]"},
                {"role": "user", "content": [{"type": "text", "text": "second"}]},
                {"role": "tool", "content": SNAPSHOT},
            ]
        });
        let t = Transcript::from_body(body);
        assert!(t.offers_tools());
        assert_eq!(t.texts_of("user"), ["first", "second"]);
        assert_eq!(t.turn_results(), [SNAPSHOT]);
        assert_eq!(t.find_ref("button", "Pay").as_deref(), Some("e3"));
        assert!(!Transcript::from_body(json!({"tools": [], "messages": []})).offers_tools());
    }
}
