//! The script language: one [`Reply`] answers one model request, built from steps.

use super::Gate;

/// One scripted answer to one model request, rendered in the wire format of the endpoint that
/// was called (OpenAI-compatible `chat/completions` or Anthropic `messages`).
///
/// A streamed reply is a list of steps played in order, followed by the finish reason and usage
/// (unless the stream was [`truncated`](Self::truncated)). Constructors start a reply and the
/// `then_*` methods append steps, so a script reads like the conversation it stands for:
///
/// ```
/// use panelot_testkit::mock_provider::Gate;
/// use panelot_testkit::mock_provider::Reply;
/// use panelot_testkit::mock_provider::Usage;
/// use serde_json::json;
///
/// let gate = Gate::new();
/// let replies = [
///     Reply::reasoning("The user wants a click.")
///         .then_tool_call("click", json!({"ref": "e1"}))
///         .with_id("call_1"),
///     Reply::text("Done, I clicked ").then_stall(&gate).then_text("it.").usage(Usage::new(20, 5)),
///     Reply::error(429, json!({"error": {"message": "slow down"}})).retry_after(2),
///     Reply::text("Half an ans").truncated(),
/// ];
/// # drop(replies);
/// ```
#[derive(Debug, Clone)]
pub struct Reply {
    pub(super) head: Head,
    /// Held before the status line is written: a server that accepts and never answers.
    pub(super) head_stall: Option<Gate>,
    pub(super) steps: Vec<Step>,
    pub(super) usage: Option<Usage>,
    pub(super) finish: Finish,
    /// Extra response headers, written after the standard ones.
    pub(super) headers: Vec<(String, String)>,
}

/// Token usage reported at the end of a stream, written verbatim into the wire format: no
/// arithmetic between the fields, so a test knows exactly what the client saw.
///
/// OpenAI: `prompt_tokens` = `input`, `completion_tokens` = `output`, `total_tokens` = their
/// sum, `prompt_tokens_details.cached_tokens` = `cached`. Anthropic: `input_tokens`,
/// `output_tokens`, `cache_read_input_tokens` = `cached`, `cache_creation_input_tokens` =
/// `cache_write` (OpenAI has no field for cache writes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input (prompt) tokens.
    pub input: u64,
    /// Output (completion) tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cached: u64,
    /// Input tokens written to the prompt cache (Anthropic only).
    pub cache_write: u64,
}

impl Usage {
    /// Usage with no cache activity.
    pub fn new(input: u64, output: u64) -> Self {
        Usage { input, output, cached: 0, cache_write: 0 }
    }

    /// Sets the cache-read tokens.
    pub fn cached(self, cached: u64) -> Self {
        Usage { cached, ..self }
    }

    /// Sets the cache-write tokens.
    pub fn cache_write(self, cache_write: u64) -> Self {
        Usage { cache_write, ..self }
    }
}

/// What the response is, before any streamed step.
#[derive(Debug, Clone)]
pub(super) enum Head {
    /// `200` with an SSE body built from the steps.
    Stream,
    /// `200` with these bytes as the whole body; the steps are ignored.
    Garbage(Vec<u8>),
    /// A complete non-streamed response; the steps are ignored.
    Error { status: u16, content_type: &'static str, body: String },
    /// These bytes instead of an HTTP response, then close.
    Raw(Vec<u8>),
}

/// One streamed step.
#[derive(Debug, Clone)]
pub(super) enum Step {
    Text(String),
    Reasoning {
        text: String,
        signature: Option<String>,
    },
    RedactedReasoning(String),
    ToolCall(ToolCallStep),
    Stall(Gate),
    /// Bytes written verbatim into the body.
    Raw(Vec<u8>),
    /// Close the connection here: no finish reason, no usage, no terminator.
    Truncate,
}

#[derive(Debug, Clone)]
pub(super) struct ToolCallStep {
    /// `None`: the server makes one up, unique per request and call.
    pub(super) id: Option<String>,
    pub(super) name: String,
    /// The arguments as sent, which need not be valid JSON.
    pub(super) arguments: String,
    pub(super) chunking: ArgumentChunking,
}

/// How tool-call arguments are streamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ArgumentChunking {
    /// Fragments of at most [`ARGUMENT_FRAGMENT_BYTES`], after a first delta naming the call.
    Fragments,
    /// Id, name and all arguments in one delta, as several local servers send them.
    Whole,
}

/// The longest tool-argument fragment, in bytes: short, so that even small argument objects
/// arrive in several pieces as they do from real models.
pub(super) const ARGUMENT_FRAGMENT_BYTES: usize = 8;

/// The finish or stop reason at the end of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Finish {
    /// `tool_calls`/`tool_use` when the reply has a tool call, else `stop`/`end_turn`.
    Natural,
    /// `length`/`max_tokens`.
    Length,
    /// This string, verbatim, in either format.
    Verbatim(String),
}

impl Default for Reply {
    fn default() -> Self {
        Reply {
            head: Head::Stream,
            head_stall: None,
            steps: Vec::new(),
            usage: None,
            finish: Finish::Natural,
            headers: Vec::new(),
        }
    }
}

impl Reply {
    /// An empty stream: just the finish reason (and usage, if set).
    pub fn new() -> Self {
        Self::default()
    }

    /// A stream with one text delta.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new().then_text(text)
    }

    /// A stream with one reasoning delta (OpenAI `reasoning_content`; an Anthropic thinking
    /// block with a signature).
    pub fn reasoning(text: impl Into<String>) -> Self {
        Self::new().then_reasoning(text)
    }

    /// A stream with one tool call whose arguments are `arguments` serialized as JSON.
    pub fn tool_call(name: impl Into<String>, arguments: serde_json::Value) -> Self {
        Self::new().then_tool_call(name, arguments)
    }

    /// A non-streamed error response: `status` with `body`. The content type is
    /// `application/json` when the body parses as JSON, else `text/plain`. Pass a
    /// `serde_json::Value` or a string.
    pub fn error(status: u16, body: impl ToString) -> Self {
        let body = body.to_string();
        let content_type = if serde_json::from_str::<serde_json::Value>(&body).is_ok() {
            "application/json"
        } else {
            "text/plain; charset=utf-8"
        };
        Reply { head: Head::Error { status, content_type, body }, ..Self::new() }
    }

    /// An HTML error page with `status`, as a reverse proxy or captive portal sends it.
    pub fn html_error(status: u16) -> Self {
        let reason = super::http::reason_phrase(status);
        let body = format!(
            "<!DOCTYPE html>\n<html><head><title>{status} {reason}</title></head>\n\
             <body><center><h1>{status} {reason}</h1></center><hr><center>nginx</center>\
             </body></html>\n"
        );
        Reply { head: Head::Error { status, content_type: "text/html", body }, ..Self::new() }
    }

    /// A `200` event stream whose body is these bytes and nothing else, then close.
    pub fn garbage(bytes: impl Into<Vec<u8>>) -> Self {
        Reply { head: Head::Garbage(bytes.into()), ..Self::new() }
    }

    /// These bytes instead of an HTTP response (not even a status line), then close.
    pub fn raw_response(bytes: impl Into<Vec<u8>>) -> Self {
        Reply { head: Head::Raw(bytes.into()), ..Self::new() }
    }

    /// Accepts the request and sends nothing, not even the status line, until `gate` is
    /// released; then the reply goes on with whatever steps follow.
    pub fn stall(gate: &Gate) -> Self {
        Reply { head_stall: Some(gate.clone()), ..Self::new() }
    }

    /// Holds this reply, whatever it is, before its status line until `gate` is released (see
    /// [`Reply::stall`]), so a test can change the world between a request and its answer.
    pub fn held(self, gate: &Gate) -> Self {
        Reply { head_stall: Some(gate.clone()), ..self }
    }

    /// Appends a text delta.
    pub fn then_text(mut self, text: impl Into<String>) -> Self {
        self.steps.push(Step::Text(text.into()));
        self
    }

    /// Appends a reasoning delta. Consecutive reasoning deltas form one Anthropic thinking
    /// block, whose signature is `mock-signature` unless set with [`signature`](Self::signature).
    pub fn then_reasoning(mut self, text: impl Into<String>) -> Self {
        self.steps.push(Step::Reasoning { text: text.into(), signature: None });
        self
    }

    /// Appends an Anthropic `redacted_thinking` block with this opaque data (nothing in the
    /// OpenAI format).
    pub fn then_redacted_reasoning(mut self, data: impl Into<String>) -> Self {
        self.steps.push(Step::RedactedReasoning(data.into()));
        self
    }

    /// Appends a tool call whose arguments are `arguments` serialized as JSON, streamed in
    /// short fragments after a first delta carrying the id and name.
    pub fn then_tool_call(self, name: impl Into<String>, arguments: serde_json::Value) -> Self {
        self.then_tool_call_raw(name, arguments.to_string())
    }

    /// Appends a tool call whose arguments are this text verbatim, valid JSON or not.
    pub fn then_tool_call_raw(
        mut self,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        self.steps.push(Step::ToolCall(ToolCallStep {
            id: None,
            name: name.into(),
            arguments: arguments.into(),
            chunking: ArgumentChunking::Fragments,
        }));
        self
    }

    /// Appends a stall: everything before it is written and flushed, then the stream waits
    /// until `gate` is released (or the client disconnects).
    pub fn then_stall(mut self, gate: &Gate) -> Self {
        self.steps.push(Step::Stall(gate.clone()));
        self
    }

    /// Appends bytes written verbatim into the body: garbage, an SSE comment, a mid-stream
    /// error event, anything the scripted steps cannot say.
    pub fn then_raw(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.steps.push(Step::Raw(bytes.into()));
        self
    }

    /// Closes the connection after the steps so far: no finish reason, no usage, no `[DONE]`
    /// or `message_stop`. Steps appended later are never sent.
    pub fn truncated(mut self) -> Self {
        self.steps.push(Step::Truncate);
        self
    }

    /// Sets the id of the last tool call (by default the server makes one up).
    ///
    /// # Panics
    /// If the last step is not a tool call: that is a bug in the test's script.
    pub fn with_id(self, id: impl Into<String>) -> Self {
        self.map_last_tool_call("with_id", |call| call.id = Some(id.into()))
    }

    /// Sends the last tool call's id, name and complete arguments in a single delta, as
    /// several local servers (Ollama, llama.cpp) do.
    ///
    /// # Panics
    /// If the last step is not a tool call: that is a bug in the test's script.
    pub fn in_one_chunk(self) -> Self {
        self.map_last_tool_call("in_one_chunk", |call| call.chunking = ArgumentChunking::Whole)
    }

    /// Sets the Anthropic signature of the thinking block the last reasoning delta belongs to.
    ///
    /// # Panics
    /// If the last step is not a reasoning delta: that is a bug in the test's script.
    pub fn signature(mut self, signature: impl Into<String>) -> Self {
        match self.steps.last_mut() {
            Some(Step::Reasoning { signature: slot, .. }) => *slot = Some(signature.into()),
            last => panic!("Reply::signature must follow a reasoning step, not {last:?}"),
        }
        self
    }

    /// Sets the usage reported at the end of the stream.
    pub fn usage(self, usage: Usage) -> Self {
        Reply { usage: Some(usage), ..self }
    }

    /// Sets the finish reason (OpenAI) or stop reason (Anthropic) verbatim, known or not.
    pub fn finish(self, reason: impl Into<String>) -> Self {
        Reply { finish: Finish::Verbatim(reason.into()), ..self }
    }

    /// Ends the stream as cut by the output token limit (`length` / `max_tokens`).
    pub fn finish_length(self) -> Self {
        Reply { finish: Finish::Length, ..self }
    }

    /// Adds a `Retry-After: <seconds>` response header.
    pub fn retry_after(self, seconds: u64) -> Self {
        self.header("retry-after", seconds.to_string())
    }

    /// Adds a response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Whether the streamed steps include a tool call, which decides the natural finish reason.
    pub(super) fn has_tool_call(&self) -> bool {
        self.steps.iter().any(|step| matches!(step, Step::ToolCall(_)))
    }

    fn map_last_tool_call(mut self, what: &str, edit: impl FnOnce(&mut ToolCallStep)) -> Self {
        match self.steps.last_mut() {
            Some(Step::ToolCall(call)) => edit(call),
            last => panic!("Reply::{what} must follow a tool call step, not {last:?}"),
        }
        self
    }
}

/// Splits `text` into pieces of at most `max` bytes, never inside a UTF-8 character; an empty
/// text gives no pieces.
pub(super) fn fragments(text: &str, max: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = max.max(1).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}
