//! The driver that turns response-body chunks into model events: SSE framing plus a
//! wire-format adapter.

use panelot_core::model::ModelEvent;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;

use crate::error::protocol_error;
use crate::sse::SseError;
use crate::sse::SseEvent;
use crate::sse::SseParser;

/// A wire format's stream state machine, fed one SSE event at a time.
///
/// Implemented by [`OpenAiStream`](crate::openai::OpenAiStream) and
/// [`AnthropicStream`](crate::anthropic::AnthropicStream).
pub trait StreamAdapter {
    /// Handles one event, appending what it produced to `out`. An error ends the call.
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError>;

    /// The body ended cleanly: the complete response, or why it is not one.
    fn finish(self) -> Result<ModelResponse, ProviderError>;
}

/// Decodes one response body: feed chunks as they arrive, then [`finish`](Self::finish).
#[derive(Debug)]
pub struct StreamDecoder<A> {
    sse: SseParser,
    adapter: A,
    events: Vec<SseEvent>,
    failed: Option<ProviderError>,
}

impl<A: StreamAdapter> StreamDecoder<A> {
    /// A decoder with the default per-event cap (16 MiB).
    pub fn new(adapter: A) -> StreamDecoder<A> {
        StreamDecoder::with_parser(adapter, SseParser::default())
    }

    /// A decoder with a custom SSE parser (for a different event cap).
    pub fn with_parser(adapter: A, sse: SseParser) -> StreamDecoder<A> {
        StreamDecoder { sse, adapter, events: Vec::new(), failed: None }
    }

    /// Decodes a chunk and returns the model events it completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<ModelEvent>, ProviderError> {
        let mut out = Vec::new();
        self.feed_into(bytes, &mut out)?;
        Ok(out)
    }

    /// Like [`feed`](Self::feed), appending to `out`. After an error every call returns it
    /// again: the call has failed and the rest of the body is of no use.
    pub fn feed_into(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ProviderError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let mut events = std::mem::take(&mut self.events);
        let res = match self.sse.feed_into(bytes, &mut events) {
            Ok(()) => events.drain(..).try_for_each(|event| self.adapter.on_event(&event, out)),
            Err(err) => Err(sse_error(&err)),
        };
        events.clear();
        self.events = events;
        if let Err(err) = &res {
            self.failed = Some(err.clone());
        }
        res
    }

    /// The body ended: the complete response or the reason it is not one. Events of a last
    /// unterminated event are appended to `out`.
    pub fn finish(mut self, out: &mut Vec<ModelEvent>) -> Result<ModelResponse, ProviderError> {
        if let Some(err) = self.failed {
            return Err(err);
        }
        if let Some(event) = self.sse.finish() {
            self.adapter.on_event(&event, out)?;
        }
        self.adapter.finish()
    }
}

fn sse_error(err: &SseError) -> ProviderError {
    match err {
        SseError::EventTooLarge { limit } => {
            protocol_error(format!("a stream event is larger than {limit} bytes"))
        }
    }
}
