//! Model listing: `GET {base}/models` (`{base}/v1/models` for Anthropic) per connection, all
//! enabled connections at once, each within its own budget so a slow one never holds up the
//! others. Manual model ids take priority and need no request.

use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;
use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderErrorKind;
use serde_json::Value;

use super::ProviderClient;
use super::exchange::Expect;
use super::exchange::Failure;
use super::exchange::Opened;
use super::retry::Policy;
use crate::anthropic::ANTHROPIC_VERSION;
use crate::connection::Connection;
use crate::error::ErrorReason;
use crate::error::error;
use crate::error::for_connection;
use crate::error::protocol_error;
use crate::http::Http;
use crate::http::Method;
use crate::request::Header;
use crate::request::ProviderRequest;
use crate::templates::WireFormat;
use crate::timer::Timer;
use crate::timer::Wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::join_all;
use panelot_core::combinators::race;

/// Listing retries are quick: the whole listing has a budget of a few seconds.
const LIST_BACKOFF_BASE_MS: u64 = 50;
const LIST_BACKOFF_CAP_MS: u64 = 250;
const LIST_MIN_ATTEMPTS: u32 = 4;

/// The models of one connection, or why they could not be listed.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionModels {
    /// The connection.
    pub connection_id: String,
    /// Its model ids in the endpoint's order, or the failure.
    pub models: Result<Vec<String>, ProviderError>,
}

impl<H: Http, T: Timer> ProviderClient<H, T> {
    /// The models of every enabled connection, concurrently, in connection-id order.
    pub async fn list_all_models(&self, abort: &AbortSignal) -> Vec<ConnectionModels> {
        // The borrow ends with this statement: the futures own clones and run only when joined.
        let listings: Vec<LocalFuture<'_, ConnectionModels>> = self
            .connections
            .borrow()
            .values()
            .filter(|conn| conn.enabled)
            .cloned()
            .map(|conn| -> LocalFuture<'_, ConnectionModels> {
                Box::pin(async move {
                    let models = self.list_models_of(&conn, abort).await;
                    ConnectionModels { connection_id: conn.id, models }
                })
            })
            .collect();
        join_all(listings).await
    }

    /// The models of the stored connection `id` (enabled or not).
    pub async fn list_models(
        &self,
        id: &str,
        abort: &AbortSignal,
    ) -> Result<Vec<String>, ProviderError> {
        let Some(conn) = self.connection(id) else {
            return Err(super::unavailable(format!("no connection {id:?}")));
        };
        self.list_models_of(&conn, abort).await
    }

    /// The models of `conn` within the listing budget: its manual model ids when it has some,
    /// else what the endpoint lists.
    pub async fn list_models_of(
        &self,
        conn: &Connection,
        abort: &AbortSignal,
    ) -> Result<Vec<String>, ProviderError> {
        if !conn.model_ids.is_empty() {
            return Ok(conn.model_ids.clone());
        }
        self.list_endpoint_models(conn, abort).await
    }

    /// What the endpoint of `conn` lists, within the listing budget, whatever model ids the
    /// connection names (the settings page offers them to pick from).
    pub async fn list_endpoint_models(
        &self,
        conn: &Connection,
        abort: &AbortSignal,
    ) -> Result<Vec<String>, ProviderError> {
        let budget_ms = self.config.list_budget_ms;
        match race(self.fetch_models(conn, abort), self.timer.sleep(Wait::Budget { ms: budget_ms }))
            .await
        {
            Either::Left(res) => res,
            Either::Right(()) => Err(error(
                ProviderErrorKind::Network,
                ErrorReason::Stalled,
                format!("listing the models took longer than {} s", budget_ms.div_ceil(1000)),
            )),
        }
        .map_err(|err| for_connection(err, &conn.name, conn.base_url.as_str()))
    }

    async fn fetch_models(
        &self,
        conn: &Connection,
        abort: &AbortSignal,
    ) -> Result<Vec<String>, ProviderError> {
        let opened = Opened::open(conn, &self.vault)?;
        let n_keys = opened.keys.len();
        let policy = Policy {
            max_attempts: LIST_MIN_ATTEMPTS.max(u32::try_from(n_keys).unwrap_or(u32::MAX)),
            base_ms: LIST_BACKOFF_BASE_MS,
            cap_ms: LIST_BACKOFF_CAP_MS,
            max_retry_after_ms: self.config.list_budget_ms,
        };
        // Listing is quick and shown nowhere while it runs: its retries are not announced.
        let mut quiet = |_, _, _: &ProviderError| {};
        self.with_retries(&conn.id, n_keys, &policy, abort, &mut quiet, async |key_idx| {
            let request = models_request(conn.kind, opened.key(key_idx));
            let http_request = opened.http_request(conn, Method::Get, request);
            let secrets = opened.secrets();
            let mut response = self.exchange(http_request, &secrets, Expect::Json, abort).await?;
            let body = self.read_capped(&mut response, abort).await;
            parse_models(&body).map_err(|error| Failure {
                error,
                retry_after_ms: None,
                delivered: false,
            })
        })
        .await
    }
}

fn models_request(kind: WireFormat, key: Option<&str>) -> ProviderRequest {
    let key = key.filter(|key| !key.is_empty());
    let mut headers = vec![Header::plain("accept", "application/json")];
    let path = match kind {
        WireFormat::OpenAi => {
            if let Some(key) = key {
                headers.push(Header::secret("authorization", format!("Bearer {key}")));
            }
            "models"
        }
        WireFormat::Anthropic => {
            headers.push(Header::plain("anthropic-version", ANTHROPIC_VERSION));
            headers.push(Header::plain("anthropic-dangerous-direct-browser-access", "true"));
            if let Some(key) = key {
                headers.push(Header::secret("x-api-key", key.to_owned()));
            }
            "v1/models"
        }
    };
    ProviderRequest { path, headers, body: Value::Null }
}

/// `{"data": [{"id": "…"}, …]}`: entries without a non-empty string id are skipped, repeats
/// dropped.
pub(super) fn parse_models(body: &[u8]) -> Result<Vec<String>, ProviderError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|_| protocol_error("the model list is not JSON"))?;
    let Some(entries) = value.get("data").and_then(Value::as_array) else {
        return Err(protocol_error("the model list has no data array"));
    };
    let mut ids: Vec<String> = Vec::new();
    for id in entries.iter().filter_map(|entry| entry.get("id").and_then(Value::as_str)) {
        if !id.is_empty() && !ids.iter().any(|known| known == id) {
            ids.push(id.to_owned());
        }
    }
    Ok(ids)
}

#[cfg(test)]
#[path = "models_tests.rs"]
mod tests;
