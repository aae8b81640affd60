//! [`ProviderClient`]: the engine's [`ModelBackend`] over an [`Http`] transport. It looks up
//! the connection, opens its sealed keys, builds the wire request, streams the body through a
//! [`StreamDecoder`](crate::StreamDecoder), and handles keys, retries, stalls and aborts.
//!
//! **Keys** are sticky: the key that last worked is used first, so provider-side prompt caches
//! stay warm. When the server refuses the key (401, 403, or a proxy's own status for it), rate
//! limits it (429) or its quota or budget is used up (402, or any status whose body says so), the
//! next key is tried at once; each key at most once per call.
//!
//! **Retries**: at most [`ClientConfig::max_attempts`] requests per call, key switches
//! included. Network failures, stalls, overload and rate limits without another key back off
//! `1 s, 2 s, 4 s, …` (capped at 32 s) with 50–100 % jitter, or longer when `retry-after` asks
//! for it; a `retry-after` beyond [`ClientConfig::max_retry_after_ms`] ends the call instead.
//! A stream that has delivered an event is never retried: the engine has already shown it. Each
//! wait is announced first as `ModelEvent::Retrying`, so the person sees "retrying in 2 s".
//! An exhausted quota is never retried: it does not refill within a backoff.
//!
//! **Errors** are [`ProviderError`]s whose messages and details never contain a key or a
//! custom header value: upstream text is redacted with the connection's secrets, and transport
//! errors carry no header.

mod exchange;
mod models;
mod retry;
mod stream_call;
mod verify;

use std::cell::Cell;
use std::cell::RefCell;

use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;
use panelot_core::model::ModelBackend;
use panelot_core::model::ModelEvent;
use panelot_core::model::ModelRequest;
use panelot_core::model::ModelResponse;
use panelot_core::model::ProviderError;
use panelot_core::sorted_map::SortedMap;
use panelot_protocol::engine::ProviderErrorKind;

use crate::connection::Connection;
use crate::error::ErrorReason;
use crate::error::error;
use crate::http::Http;
use crate::secret::VaultKey;
use crate::timer::Timer;

pub use models::ConnectionModels;
pub use verify::VerifyFailure;
pub use verify::VerifyReport;

/// Limits of the client. `Default` is what the engine uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Longest silence while waiting for headers or the next chunk (reasoning models can think
    /// for minutes without sending a byte, so this is generous).
    pub stall_timeout_ms: u64,
    /// Requests per model call, key switches included.
    pub max_attempts: u32,
    /// First backoff delay.
    pub backoff_base_ms: u64,
    /// Longest backoff delay.
    pub backoff_cap_ms: u64,
    /// A `retry-after` longer than this fails the call instead of waiting.
    pub max_retry_after_ms: u64,
    /// Budget of one connection's model listing.
    pub list_budget_ms: u64,
    /// Seed of the jitter sequence (hosts pass a random one; tests a fixed one).
    pub jitter_seed: u64,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            stall_timeout_ms: 180_000,
            max_attempts: 4,
            backoff_base_ms: 1_000,
            backoff_cap_ms: 32_000,
            max_retry_after_ms: 60_000,
            list_budget_ms: 4_000,
            jitter_seed: 0x9E37_79B9_7F4A_7C15,
        }
    }
}

/// Model calls, listings and verification over the host's transport and timer.
///
/// ```
/// # fn demo<H: panelot_providers::Http, T: panelot_providers::Timer>(http: H, timer: T, key: panelot_providers::VaultKey, stored: Vec<panelot_providers::Connection>) {
/// use panelot_providers::ClientConfig;
/// use panelot_providers::ProviderClient;
///
/// let client = ProviderClient::new(http, timer, key, ClientConfig::default());
/// client.set_connections(stored);
/// // `client` is a `panelot_core::model::ModelBackend`: the host hands it to the engine.
/// # }
/// ```
#[derive(Debug)]
pub struct ProviderClient<H, T> {
    http: H,
    timer: T,
    vault: VaultKey,
    config: ClientConfig,
    connections: RefCell<SortedMap<String, Connection>>,
    /// Index of the key to use first, per connection id.
    sticky_keys: RefCell<SortedMap<String, usize>>,
    /// xorshift state for jitter.
    jitter: Cell<u64>,
}

impl<H: Http, T: Timer> ProviderClient<H, T> {
    /// A client without connections; `vault` opens their sealed secrets.
    pub fn new(http: H, timer: T, vault: VaultKey, config: ClientConfig) -> ProviderClient<H, T> {
        // xorshift must not start at zero.
        let seed = config.jitter_seed.max(1);
        ProviderClient {
            http,
            timer,
            vault,
            config,
            connections: RefCell::new(SortedMap::new()),
            sticky_keys: RefCell::new(SortedMap::new()),
            jitter: Cell::new(seed),
        }
    }

    /// Replaces the connections (after the setting changed). The sticky key of a connection is
    /// kept while its key list is unchanged.
    pub fn set_connections(&self, connections: impl IntoIterator<Item = Connection>) {
        let mut new = SortedMap::new();
        for conn in connections {
            new.insert(conn.id.clone(), conn);
        }
        let old = self.connections.replace(new);
        let current = self.connections.borrow();
        self.sticky_keys.borrow_mut().retain(|id, _| {
            matches!((old.get(id), current.get(id)), (Some(a), Some(b)) if a.api_keys == b.api_keys)
        });
    }

    /// The stored connection with `id`.
    pub fn connection(&self, id: &str) -> Option<Connection> {
        self.connections.borrow().get(id).cloned()
    }

    /// The limits in force.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Streams one call to a connection that need not be stored (the host hands it the
    /// connection the engine's effect carries). See [`ModelBackend::stream`].
    pub async fn stream_with(
        &self,
        conn: &Connection,
        request: &ModelRequest,
        on_event: &mut dyn FnMut(ModelEvent),
        abort: &AbortSignal,
    ) -> Result<ModelResponse, ProviderError> {
        self.engine_call(conn, request, on_event, abort).await
    }

    /// The enabled connection with `id`.
    fn lookup(&self, id: &str) -> Result<Connection, ProviderError> {
        match self.connections.borrow().get(id) {
            Some(conn) if conn.enabled => Ok(conn.clone()),
            Some(_) => Err(unavailable(format!("connection {id:?} is disabled"))),
            None => Err(unavailable(format!("no connection {id:?}"))),
        }
    }
}

impl<H: Http, T: Timer> ModelBackend for ProviderClient<H, T> {
    fn stream<'a>(
        &'a self,
        connection: &'a str,
        request: &'a ModelRequest,
        on_event: &'a mut dyn FnMut(ModelEvent),
        abort: AbortSignal,
    ) -> LocalFuture<'a, Result<ModelResponse, ProviderError>> {
        Box::pin(async move {
            let conn = self.lookup(connection)?;
            self.engine_call(&conn, request, on_event, &abort).await
        })
    }
}

fn unavailable(message: String) -> ProviderError {
    error(ProviderErrorKind::Protocol, ErrorReason::ConnectionUnavailable, message)
}
