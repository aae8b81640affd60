//! An incremental Server-Sent-Events parser (the WHATWG `text/event-stream` format) that accepts
//! bytes split anywhere and never buffers more than one event's worth of memory.
//!
//! Feed it the body as it arrives with [`SseParser::feed`] and call [`SseParser::finish`] at the
//! end of the body. Lines end in CRLF, LF or CR, and a CRLF may be split across two chunks; one
//! leading UTF-8 byte order mark is skipped; comments (`:` lines) and unknown fields are
//! dropped without being buffered, so a body of garbage costs no memory.

/// Events may not grow past this many bytes (data, event name and the pending line together).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Longest field name we keep (`event` and `retry`); a longer name without a colon is unknown.
const MAX_FIELD_NAME: usize = 5;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, or `None` when the event had none (the spec's `message`).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen in the stream, if any (ids persist across events, as in the spec).
    pub id: Option<String>,
}

impl SseEvent {
    /// The event type, `message` when the stream named none.
    pub fn kind(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }
}

/// Why the stream cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// One event grew past the configured limit; the parser refuses further input.
    #[error("an event is larger than {limit} bytes")]
    EventTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
}

/// The incremental parser. One per response body.
#[derive(Debug)]
pub struct SseParser {
    max_event_bytes: usize,
    /// Bytes of the current line when it spans chunks.
    line: Vec<u8>,
    /// The current line is a comment or an unknown field: drop its bytes until the line ends.
    skipping: bool,
    /// The previous chunk ended in CR: a LF at the start of the next one belongs to it.
    after_cr: bool,
    /// How many bytes of a leading BOM have been matched; `None` once decided.
    bom_matched: Option<usize>,
    data: String,
    has_data_line: bool,
    event: String,
    last_id: Option<String>,
    retry_ms: Option<u64>,
    failed: Option<SseError>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_max_event_bytes(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser with a custom per-event size cap.
    pub fn with_max_event_bytes(max_event_bytes: usize) -> Self {
        Self {
            max_event_bytes,
            line: Vec::new(),
            skipping: false,
            after_cr: false,
            bom_matched: Some(0),
            data: String::new(),
            has_data_line: false,
            event: String::new(),
            last_id: None,
            retry_ms: None,
            failed: None,
        }
    }

    /// The reconnection time the server asked for (`retry:`), if any.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Parses more of the body and returns the events it completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        self.feed_into(bytes, &mut out)?;
        Ok(out)
    }

    /// Like [`feed`](Self::feed), appending to `out` (no allocation when nothing completes).
    pub fn feed_into(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let mut input = bytes;
        if let Some(matched) = self.bom_matched {
            let mut matched = matched;
            while matched < BOM.len() {
                let Some((&first, rest)) = input.split_first() else {
                    self.bom_matched = Some(matched);
                    return Ok(());
                };
                if first != BOM[matched] {
                    break;
                }
                matched += 1;
                input = rest;
            }
            self.bom_matched = None;
            if matched < BOM.len() {
                // A partial match was not a BOM after all: those bytes are content.
                let res = self.process(&BOM[..matched], out);
                if let Err(err) = res {
                    return self.fail(err);
                }
            }
        }
        match self.process(input, out) {
            Ok(()) => Ok(()),
            Err(err) => self.fail(err),
        }
    }

    /// Ends the body. An unterminated last line is dropped (the stream was cut inside it); an
    /// event whose lines all ended but that lacks the closing blank line is dispatched, so a
    /// server that omits the final blank line loses nothing and a truncated JSON line is never
    /// mistaken for a complete one.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if self.failed.is_some() {
            return None;
        }
        self.line.clear();
        self.skipping = false;
        self.after_cr = false;
        self.take_event()
    }

    fn fail(&mut self, err: SseError) -> Result<(), SseError> {
        self.failed = Some(err.clone());
        self.line = Vec::new();
        self.data = String::new();
        Err(err)
    }

    fn process(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut input = bytes;
        if self.after_cr && !input.is_empty() {
            self.after_cr = false;
            if input[0] == b'\n' {
                input = &input[1..];
            }
        }
        while !input.is_empty() {
            let Some(end) = input.iter().position(|&b| b == b'\n' || b == b'\r') else {
                self.push_partial(input)?;
                return Ok(());
            };
            let part = &input[..end];
            if self.line.is_empty() && !self.skipping {
                self.end_line(part, out)?;
            } else {
                if !self.skipping {
                    self.push_partial(part)?;
                }
                let skipped = std::mem::take(&mut self.skipping);
                let line = std::mem::take(&mut self.line);
                if !skipped {
                    self.end_line(&line, out)?;
                }
                // Keep the allocation for the next long line.
                self.line = line;
                self.line.clear();
            }
            let mut next = end + 1;
            if input[end] == b'\r' {
                match input.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            input = &input[next..];
        }
        Ok(())
    }

    /// Buffers part of a line that continues in a later chunk, unless the line cannot matter.
    fn push_partial(&mut self, part: &[u8]) -> Result<(), SseError> {
        if self.skipping {
            return Ok(());
        }
        let had = self.line.len();
        let name_end = match self.line.iter().position(|&b| b == b':') {
            Some(colon) => Some(colon),
            None => part.iter().position(|&b| b == b':').map(|i| had + i),
        };
        let starts_with_colon = self.line.first().or(part.first()) == Some(&b':');
        let drop = if starts_with_colon {
            true
        } else {
            match name_end {
                Some(colon) => {
                    let mut name = [0u8; MAX_FIELD_NAME];
                    let known = colon <= MAX_FIELD_NAME && {
                        for (i, slot) in name.iter_mut().enumerate().take(colon) {
                            *slot = if i < had { self.line[i] } else { part[i - had] };
                        }
                        is_known_field(&name[..colon])
                    };
                    !known
                }
                None => had + part.len() > MAX_FIELD_NAME,
            }
        };
        if drop {
            self.skipping = true;
            self.line.clear();
            return Ok(());
        }
        // Only a line with a known field name can grow past a few bytes here; checking it now
        // bounds memory, and the same check at the end of the line keeps the outcome independent
        // of where the chunks were split.
        if name_end.is_some() {
            self.check_size(had + part.len())?;
        }
        self.line.extend_from_slice(part);
        Ok(())
    }

    fn end_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if is_relevant(line) {
            self.check_size(line.len())?;
        }
        self.handle_line(line, out);
        Ok(())
    }

    fn check_size(&self, line_len: usize) -> Result<(), SseError> {
        if self.data.len() + self.event.len() + line_len > self.max_event_bytes {
            return Err(SseError::EventTooLarge { limit: self.max_event_bytes });
        }
        Ok(())
    }

    fn handle_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if let Some(event) = self.take_event() {
                out.push(event);
            }
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                if self.has_data_line {
                    self.data.push('\n');
                }
                self.has_data_line = true;
                self.data.push_str(&String::from_utf8_lossy(value));
            }
            b"event" => {
                self.event.clear();
                self.event.push_str(&String::from_utf8_lossy(value));
            }
            // The spec ignores ids containing NUL.
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"retry" => {
                if !value.is_empty()
                    && value.iter().all(u8::is_ascii_digit)
                    && let Ok(text) = std::str::from_utf8(value)
                    && let Ok(ms) = text.parse()
                {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
    }

    /// Dispatches the pending event, if it has data; an event without data lines is dropped as
    /// the spec says, and its event name with it.
    fn take_event(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        if !std::mem::take(&mut self.has_data_line) {
            return None;
        }
        let data = std::mem::take(&mut self.data);
        let id = self.last_id.as_ref().filter(|id| !id.is_empty()).cloned();
        Some(SseEvent { event: (!event.is_empty()).then_some(event), data, id })
    }
}

/// Whether a complete line is a field we keep (so it counts against the event size).
fn is_relevant(line: &[u8]) -> bool {
    let name_end = line.iter().position(|&b| b == b':').unwrap_or(line.len());
    name_end > 0 && is_known_field(&line[..name_end])
}

fn is_known_field(name: &[u8]) -> bool {
    matches!(name, b"data" | b"event" | b"id" | b"retry")
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
