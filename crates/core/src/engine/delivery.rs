//! Sessions and delivery: every UI port's session, which thread it follows, and where each event
//! goes. Thread events carry a stream cursor (epoch, per-thread sequence) and a snapshot carries
//! the cursor it is current at, so a client never applies a live event older than its snapshot.
//! Text deltas are coalesced here ([`deltas`]) and any other event of a thread first flushes
//! them, so merging never reorders what a client sees.

mod deltas;

use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::Audience;
use panelot_protocol::engine::StreamCursor;

pub use deltas::COALESCE_MS;
use deltas::DeltaBuffer;

use super::outbox::Outbox;
use super::outbox::PortId;
use crate::session::Session;
use crate::session::SessionStep;
use crate::sorted_map::SortedMap;

/// The sender of events the loop causes (no port asked for them).
const NO_SENDER: PortId = PortId::MAX;

#[derive(Debug, Default)]
struct PortState {
    session: Session,
    subscription: Option<ThreadId>,
}

/// Ports, their sessions and subscriptions, stream cursors and buffered deltas.
#[derive(Debug)]
pub(crate) struct Delivery {
    epoch: u64,
    ports: SortedMap<PortId, PortState>,
    sequences: SortedMap<ThreadId, u64>,
    deltas: DeltaBuffer,
}

impl Delivery {
    /// Delivery for a worker generation `epoch`.
    pub(crate) fn new(epoch: u64) -> Delivery {
        Delivery {
            epoch,
            ports: SortedMap::new(),
            sequences: SortedMap::new(),
            deltas: DeltaBuffer::default(),
        }
    }

    /// A port connected.
    pub(crate) fn connect(&mut self, port: PortId) {
        self.ports.insert(port, PortState::default());
    }

    /// A port went away (or is closed by the engine).
    pub(crate) fn disconnect(&mut self, port: PortId) {
        self.ports.remove(&port);
    }

    /// Whether the port is connected.
    pub(crate) fn has_port(&self, port: PortId) -> bool {
        self.ports.contains_key(&port)
    }

    /// Feeds one message of a port to its session; `None` for an unknown port.
    pub(crate) fn session_step(&mut self, port: PortId, text: &str) -> Option<SessionStep> {
        self.ports.get_mut(&port).map(|state| state.session.on_text(text))
    }

    /// The port follows `thread` from now on.
    pub(crate) fn subscribe(&mut self, port: PortId, thread: &ThreadId) {
        if let Some(state) = self.ports.get_mut(&port) {
            state.subscription = Some(thread.clone());
        }
    }

    /// Whether a view follows `thread` (a port subscribed to it).
    pub(crate) fn watched(&self, thread: &ThreadId) -> bool {
        self.ports.values().any(|state| state.subscription.as_ref() == Some(thread))
    }

    /// The view an open for `thread` goes to: the port that attached to it last.
    pub(crate) fn viewer(&self, thread: &ThreadId) -> Option<PortId> {
        self.ports
            .iter()
            .filter(|(_, state)| state.subscription.as_ref() == Some(thread))
            .map(|(port, _)| *port)
            .max()
    }

    /// Sends `frame` to `port` only.
    pub(crate) fn reply(port: PortId, frame: EventFrame, out: &mut Outbox) {
        out.sends.push((port, frame));
    }

    /// Sends `event` where its kind says, with a stream cursor on thread events; a delta waits
    /// in the buffer. Runs after the event's writes are committed, so it is also where ports stop
    /// following a deleted thread.
    pub(crate) fn publish(
        &mut self,
        sender: PortId,
        event: AgentEvent,
        now: u64,
        out: &mut Outbox,
    ) {
        if let AgentEvent::ItemDelta(delta) = event {
            self.deltas.push(delta, now);
            return;
        }
        if let Some(thread) = event.common().thread_id().cloned() {
            self.flush_thread(&thread, out);
        }
        self.emit(sender, event, out);
    }

    /// Publishes a thread event caused by the loop, not by a port's command.
    pub(crate) fn broadcast(&mut self, event: AgentEvent, now: u64, out: &mut Outbox) {
        self.publish(NO_SENDER, event, now, out);
    }

    /// Sends the thread's buffered deltas.
    pub(crate) fn flush_thread(&mut self, thread: &ThreadId, out: &mut Outbox) {
        for delta in self.deltas.take_thread(thread) {
            self.emit(NO_SENDER, AgentEvent::ItemDelta(delta), out);
        }
    }

    /// Sends the deltas that have waited long enough.
    pub(crate) fn flush_due(&mut self, now: u64, out: &mut Outbox) {
        for thread in self.deltas.due_threads(now) {
            self.flush_thread(&thread, out);
        }
    }

    /// Sends every buffered delta.
    pub(crate) fn flush_all(&mut self, out: &mut Outbox) {
        let threads: Vec<ThreadId> = self.sequences.keys().cloned().collect();
        for thread in threads {
            self.flush_thread(&thread, out);
        }
    }

    /// When the oldest buffered delta is due.
    pub(crate) fn deadline(&self) -> Option<u64> {
        self.deltas.deadline()
    }

    /// The cursor a snapshot of `thread` taken now is current at.
    pub(crate) fn current_cursor(&self, thread: &ThreadId) -> StreamCursor {
        let sequence = self.sequences.get(thread).copied().unwrap_or(0);
        StreamCursor { thread_id: thread.clone(), epoch: self.epoch, sequence }
    }

    fn next_cursor(&mut self, thread: &ThreadId) -> StreamCursor {
        let sequence = self.sequences.get_or_insert_with(thread.clone(), || 0);
        *sequence += 1;
        StreamCursor { thread_id: thread.clone(), epoch: self.epoch, sequence: *sequence }
    }

    fn emit(&mut self, sender: PortId, event: AgentEvent, out: &mut Outbox) {
        if let AgentEvent::ThreadDeleted(deleted) = &event {
            for state in self.ports.values_mut() {
                if state.subscription.as_ref() == Some(&deleted.thread_id) {
                    state.subscription = None;
                }
            }
        }
        let thread = event.common().thread_id().cloned();
        let stream = thread.as_ref().map(|id| self.next_cursor(id));
        let frame = EventFrame { event, stream };
        let recipients: Vec<PortId> = match frame.event.kind().audience() {
            Audience::Reply => vec![sender],
            Audience::Thread => self
                .ports
                .iter()
                .filter(|(_, p)| p.subscription.is_some() && p.subscription == thread)
                .map(|(id, _)| *id)
                .collect(),
            Audience::Everyone => {
                self.ports.iter().filter(|(_, p)| p.session.is_open()).map(|(id, _)| *id).collect()
            }
        };
        for port in recipients {
            out.sends.push((port, frame.clone()));
        }
    }
}
