//! Playing a reply's steps as a server-sent event stream, one TCP write per event.

use std::io;
use std::io::Write;
use std::net::TcpStream;

use serde_json::Value;

use super::Gate;
use super::Reply;
use super::Shared;
use super::gate::StallEnd;
use super::reply::Finish;
use super::reply::Step;
use super::reply::ToolCallStep;
use super::reply::Usage;

/// A response stopped before its end: a write failed (the client left) or a stall was
/// abandoned (the client left or the server is shutting down). There is nobody to tell; the
/// test sees what happened on the client side.
#[derive(Debug)]
pub(super) struct Ended;

impl From<io::Error> for Ended {
    fn from(_: io::Error) -> Self {
        Ended
    }
}

/// The write side of one connection.
#[derive(Debug)]
pub(super) struct Out<'a> {
    stream: &'a TcpStream,
    shared: &'a Shared,
}

impl<'a> Out<'a> {
    pub(super) fn new(stream: &'a TcpStream, shared: &'a Shared) -> Self {
        Out { stream, shared }
    }

    /// Writes `bytes` as one write. The socket has `TCP_NODELAY`, so each call leaves the
    /// machine at once and a client sees real streaming, not one buffered burst.
    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<(), Ended> {
        let mut stream = self.stream;
        stream.write_all(bytes)?;
        stream.flush()?;
        Ok(())
    }

    /// Writes `data: <json>` and the blank line that ends the event.
    pub(super) fn data(&mut self, json: &Value) -> Result<(), Ended> {
        self.write(format!("data: {json}\n\n").as_bytes())
    }

    /// Writes a named event: `event: <name>`, `data: <json>`, blank line.
    pub(super) fn event(&mut self, name: &str, json: &Value) -> Result<(), Ended> {
        self.write(format!("event: {name}\ndata: {json}\n\n").as_bytes())
    }

    /// Waits at `gate`; everything written so far has already been handed to the socket.
    pub(super) fn stall(&mut self, gate: &Gate) -> Result<(), Ended> {
        let stream = self.stream;
        let shared = self.shared;
        match gate.hold(|| shared.is_shutting_down() || client_gone(stream)) {
            StallEnd::Released => Ok(()),
            StallEnd::Abandoned => Err(Ended),
        }
    }
}

/// Whether the client closed its end: a peek that reads end-of-file or fails. A client that
/// only half-closes (shuts its write side and keeps reading) also reads as gone; HTTP clients
/// that stream responses do not do that.
fn client_gone(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let gone = match stream.peek(&mut [0; 1]) {
        Ok(0) => true,
        // Extra bytes from the client are ignored: the connection is still there.
        Ok(_) => false,
        Err(err) => err.kind() != io::ErrorKind::WouldBlock,
    };
    gone || stream.set_nonblocking(false).is_err()
}

/// What is known about the request a reply answers.
#[derive(Debug, Clone)]
pub(super) struct Context {
    /// The request's `model`, echoed in the stream as real servers do.
    pub(super) model: String,
    /// 1-based number of the request at this server; makes ids unique across a conversation.
    pub(super) request_no: usize,
}

/// A wire format's way of saying each step. Steps that are the same in every format (stalls,
/// raw bytes, truncation) are handled by [`play`].
pub(super) trait Dialect {
    /// Writes what precedes the first step. `usage` is the reply's, for formats that report
    /// input usage up front.
    fn open(&mut self, out: &mut Out<'_>, usage: Option<Usage>) -> Result<(), Ended>;
    /// Writes one text delta.
    fn text(&mut self, out: &mut Out<'_>, text: &str) -> Result<(), Ended>;
    /// Writes one reasoning delta; `signature` applies to the enclosing thinking block.
    fn reasoning(
        &mut self,
        out: &mut Out<'_>,
        text: &str,
        signature: Option<&str>,
    ) -> Result<(), Ended>;
    /// Writes a redacted reasoning block.
    fn redacted_reasoning(&mut self, out: &mut Out<'_>, data: &str) -> Result<(), Ended>;
    /// Writes one tool call: its opening delta and its argument fragments.
    fn tool_call(&mut self, out: &mut Out<'_>, call: &ToolCallStep) -> Result<(), Ended>;
    /// Writes the finish reason, usage and terminator.
    fn close(&mut self, out: &mut Out<'_>, reason: &str, usage: Option<Usage>)
    -> Result<(), Ended>;
    /// The finish reason a reply gets when the script did not set one.
    fn natural_finish(&self, has_tool_call: ToolCalls) -> &'static str;
    /// The finish reason for hitting the output token limit.
    fn length_finish(&self) -> &'static str;
}

/// Whether a reply contains a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolCalls {
    Some,
    None,
}

/// Plays the steps of `reply` through `dialect`, then its finish, unless truncated.
pub(super) fn play(
    reply: &Reply,
    dialect: &mut impl Dialect,
    out: &mut Out<'_>,
) -> Result<(), Ended> {
    dialect.open(out, reply.usage)?;
    for step in &reply.steps {
        match step {
            Step::Text(text) => dialect.text(out, text)?,
            Step::Reasoning { text, signature } => {
                dialect.reasoning(out, text, signature.as_deref())?;
            }
            Step::RedactedReasoning(data) => dialect.redacted_reasoning(out, data)?,
            Step::ToolCall(call) => dialect.tool_call(out, call)?,
            Step::Stall(gate) => out.stall(gate)?,
            Step::Raw(bytes) => out.write(bytes)?,
            Step::Truncate => return Ok(()),
        }
    }
    let has_tool_call = if reply.has_tool_call() { ToolCalls::Some } else { ToolCalls::None };
    let reason = match &reply.finish {
        Finish::Natural => dialect.natural_finish(has_tool_call).to_owned(),
        Finish::Length => dialect.length_finish().to_owned(),
        Finish::Verbatim(reason) => reason.clone(),
    };
    dialect.close(out, &reason, reply.usage)
}
