//! A model call: request built per attempt (the key may change), body decoded as it arrives,
//! events handed to the engine at once.

use std::cell::RefCell;

use panelot_core::env::AbortSignal;
use panelot_core::model::Message;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelRequest;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::model::Withheld;

use super::ProviderClient;
use super::exchange::Expect;
use super::exchange::Failure;
use super::exchange::Guarded;
use super::exchange::Opened;
use super::exchange::Phase;
use super::exchange::aborted;
use super::exchange::transport_failure;
use crate::anthropic;
use crate::anthropic::AnthropicStream;
use crate::capabilities::capabilities;
use crate::capabilities::cost_usd;
use crate::capabilities::pricing;
use crate::connection::Connection;
use crate::error::for_connection;
use crate::http::Http;
use crate::http::HttpResponse;
use crate::http::Method;
use crate::openai;
use crate::openai::OpenAiStream;
use crate::sse::SseEvent;
use crate::stream::StreamAdapter;
use crate::stream::StreamDecoder;
use crate::templates::WireFormat;
use crate::timer::Timer;
use crate::tool_ids::ToolCallIds;

/// Either wire format's adapter, so one decode loop serves both.
enum AnyStream {
    OpenAi(OpenAiStream),
    Anthropic(AnthropicStream),
}

impl StreamAdapter for AnyStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        match self {
            AnyStream::OpenAi(adapter) => adapter.on_event(event, out),
            AnyStream::Anthropic(adapter) => adapter.on_event(event, out),
        }
    }

    fn finish(self) -> Result<ModelResponse, ProviderError> {
        match self {
            AnyStream::OpenAi(adapter) => adapter.finish(),
            AnyStream::Anthropic(adapter) => adapter.finish(),
        }
    }
}

impl<H: Http, T: Timer> ProviderClient<H, T> {
    /// A model call for the engine: what the model cannot take (by the connection's model
    /// entries over the built-in table) is left out and reported in
    /// [`ModelResponse::withheld`], and the answer is priced when the connection has the
    /// model's prices.
    ///
    /// This is decided here rather than in the engine: the engine does not depend on this
    /// crate (it is the other way round), it keeps a connection as opaque JSON its host's vault
    /// made, and the client is the one place that holds both the model id and the connection's
    /// entries, for every host.
    pub(super) async fn engine_call(
        &self,
        conn: &Connection,
        request: &ModelRequest,
        on_event: &mut dyn FnMut(ModelEvent),
        abort: &AbortSignal,
    ) -> Result<ModelResponse, ProviderError> {
        let fitted = capabilities(&request.model, &conn.models).fit(request);
        let (request, withheld) = match &fitted {
            Some((fitted, withheld)) => (fitted, *withheld),
            None => (request, Withheld::default()),
        };
        let mut response = self.stream_call(conn, request, on_event, abort).await?;
        response.cost_usd =
            pricing(&request.model, &conn.models).map(|price| cost_usd(&response.usage, &price));
        response.withheld = withheld;
        Ok(response)
    }

    /// One model call with keys, retries, stall timeout and abort. A retry after a wait is
    /// announced as [`ModelEvent::Retrying`]; a failure names the connection and what to check.
    pub(super) async fn stream_call(
        &self,
        conn: &Connection,
        request: &ModelRequest,
        on_event: &mut dyn FnMut(ModelEvent),
        abort: &AbortSignal,
    ) -> Result<ModelResponse, ProviderError> {
        let named = |err| for_connection(err, &conn.name, conn.base_url.as_str());
        let opened = Opened::open(conn, &self.vault).map_err(named)?;
        let policy = self.call_policy();
        // Attempts and the retry announcements take turns with the engine's callback.
        let on_event = RefCell::new(on_event);
        let mut on_retry = |attempt, wait_ms, err: &ProviderError| {
            let message = format!("{}: {}", conn.name, err.message);
            (on_event.borrow_mut())(ModelEvent::Retrying { attempt, wait_ms, message });
        };
        let n_keys = opened.keys.len();
        self.with_retries(&conn.id, n_keys, &policy, abort, &mut on_retry, async |key_idx| {
            // Borrowed per event, never across an await.
            let mut emit = |event| (on_event.borrow_mut())(event);
            self.stream_attempt(conn, &opened, key_idx, request, &mut emit, abort).await
        })
        .await
        .map_err(named)
    }

    async fn stream_attempt(
        &self,
        conn: &Connection,
        opened: &Opened,
        key_idx: usize,
        request: &ModelRequest,
        on_event: &mut dyn FnMut(ModelEvent),
        abort: &AbortSignal,
    ) -> Result<ModelResponse, Failure> {
        let key = opened.key(key_idx);
        let wire = match conn.kind {
            WireFormat::OpenAi => openai::build_request(request, &conn.quirks, key),
            WireFormat::Anthropic => anthropic::build_request(request, &conn.quirks, key),
        };
        let http_request = opened.http_request(conn, Method::Post, wire);
        let secrets = opened.secrets();
        let response = self.exchange(http_request, &secrets, Expect::EventStream, abort).await?;
        let decoder = StreamDecoder::new(adapter(conn, request));
        self.decode(response, decoder, &secrets, on_event, abort).await
    }

    /// Feeds the body to `decoder`, handing each event to `on_event` as soon as it is decoded.
    async fn decode(
        &self,
        mut response: HttpResponse,
        mut decoder: StreamDecoder<AnyStream>,
        secrets: &[&str],
        on_event: &mut dyn FnMut(ModelEvent),
        abort: &AbortSignal,
    ) -> Result<ModelResponse, Failure> {
        let mut events = Vec::new();
        let mut delivered = false;
        let mut deliver = |events: &mut Vec<ModelEvent>, delivered: &mut bool| {
            for event in events.drain(..) {
                *delivered = true;
                on_event(event);
            }
        };
        loop {
            let chunk = match self.guard(response.body.next_chunk(), abort).await {
                Guarded::Done(Ok(Some(chunk))) => chunk,
                Guarded::Done(Ok(None)) => break,
                Guarded::Done(Err(err)) => {
                    return Err(transport_failure(&err, secrets, Phase::Body { delivered }));
                }
                Guarded::Stalled => return Err(self.stalled(delivered)),
                Guarded::Aborted => return Err(aborted(delivered)),
            };
            let res = decoder.feed_into(&chunk, &mut events);
            deliver(&mut events, &mut delivered);
            if let Err(error) = res {
                return Err(Failure { error, retry_after_ms: None, delivered });
            }
        }
        let res = decoder.finish(&mut events);
        deliver(&mut events, &mut delivered);
        res.map_err(|error| Failure { error, retry_after_ms: None, delivered })
    }
}

/// The adapter for `conn`'s wire format, with tool-call ids unique in the thread: the ids the
/// request already holds are taken, and generated ones carry the number of the assistant turn.
fn adapter(conn: &Connection, request: &ModelRequest) -> AnyStream {
    let mut taken = Vec::new();
    let mut n_turns = 0;
    for message in &request.messages {
        match message {
            Message::Assistant(turn) => {
                n_turns += 1;
                taken.extend(turn.tool_calls.iter().map(|call| call.id.clone()));
            }
            Message::ToolResult { call_id, .. } => taken.push(call_id.clone()),
            Message::User { .. } => {}
        }
    }
    let ids = ToolCallIds::new(format!("call_{n_turns}_")).with_taken(taken);
    match conn.kind {
        WireFormat::OpenAi => AnyStream::OpenAi(OpenAiStream::new(conn.quirks, ids)),
        WireFormat::Anthropic => AnyStream::Anthropic(AnthropicStream::new(ids)),
    }
}
