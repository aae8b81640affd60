//! The engine's [`ConnectionVault`] over [`Connection`]: keys typed in the settings form are
//! sealed before the engine stores them, and the view sent back to the settings page counts keys
//! without showing any.
//!
//! Editing a connection's keys: `apiKeys: null` keeps the stored ones; a list replaces them, in
//! which a typed key is sealed and `{"saved": N}` ([`ApiKeyEntry::Saved`]) keeps the stored key
//! N at that place, still sealed. The settings page can so add a key, remove one or reorder them
//! without ever seeing a key.

use panelot_core::engine::ConnectionVault;
use panelot_protocol::ConnectionId;
use panelot_protocol::engine::ApiKeyEntry;
use panelot_protocol::engine::ConnectionInput;
use panelot_protocol::engine::ConnectionKind;
use panelot_protocol::engine::ConnectionTemplateView;
use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::MAX_PRICE_USD_PER_MILLION;
use panelot_protocol::engine::McpServerInput;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::ModelPrice;
use panelot_protocol::engine::is_price;
use serde_json::Value;

use crate::capabilities::ModelEntry;
use crate::capabilities::Pricing;
use crate::connection::Connection;
use crate::connection::ConnectionDraft;
use crate::mcp_server::OpenedMcpServer;
use crate::mcp_server::StoredMcpServer;
use crate::quirks::QuirkFlag;
use crate::quirks::Quirks;
use crate::secret::SealedSecret;
use crate::secret::VaultKey;
use crate::templates::KeyRequirement;
use crate::templates::TEMPLATES;
use crate::templates::WireFormat;

/// Seals connections with one vault key.
#[derive(Debug)]
pub struct Vault {
    key: VaultKey,
}

impl Vault {
    /// A vault sealing with `key`.
    pub fn new(key: VaultKey) -> Vault {
        Vault { key }
    }
}

impl ConnectionVault for Vault {
    fn store(
        &self,
        id: &ConnectionId,
        input: &ConnectionInput,
        existing: Option<&Value>,
    ) -> Result<Value, String> {
        let existing: Option<Connection> =
            existing.and_then(|stored| panelot_protocol::from_value(stored.clone()).ok());
        let quirks = Quirks::from_names(&input.quirks).map_err(|e| e.to_string())?;
        let entries: Option<&Vec<ApiKeyEntry>> = input.api_keys.as_ref();
        // The typed keys, as `Connection::from_draft` seals them: trimmed, blank ones and
        // repeats left out, in order.
        let mut typed: Vec<&str> = Vec::new();
        for entry in entries.into_iter().flatten() {
            if let ApiKeyEntry::Typed(key) = entry
                && !key.trim().is_empty()
                && !typed.contains(&key.trim())
            {
                typed.push(key.trim());
            }
        }
        let draft = ConnectionDraft {
            id: id.to_string(),
            name: input.name.clone(),
            kind: Some(match input.kind {
                ConnectionKind::Openai => WireFormat::OpenAi,
                ConnectionKind::Anthropic => WireFormat::Anthropic,
            }),
            base_url: input.base_url.clone(),
            // Typed keys are sealed here; kept ones are carried over sealed, never opened.
            api_keys: typed.iter().map(|k| (*k).to_owned()).collect(),
            custom_headers: input
                .custom_headers
                .iter()
                .flatten()
                .map(|h| (h.name.clone(), h.value.clone()))
                .collect(),
            enabled: input.enabled,
            quirks,
            model_ids: input.model_ids.clone(),
            models: {
                let stored = existing.as_ref().map(|c| c.models.clone()).unwrap_or_default();
                match &input.prices {
                    Some(prices) => with_prices(stored, prices)?,
                    None => stored,
                }
            },
        };
        let mut connection = Connection::from_draft(draft, &self.key).map_err(|e| e.to_string())?;
        if let Some(entries) = entries {
            let stored = existing.as_ref().map(|c| c.api_keys.as_slice()).unwrap_or_default();
            let sealed = std::mem::take(&mut connection.api_keys);
            let mut placed = vec![false; typed.len()];
            for entry in entries {
                match entry {
                    ApiKeyEntry::Saved { saved: position } => {
                        let kept = (*position as usize).checked_sub(1).and_then(|i| stored.get(i));
                        let Some(kept) = kept else {
                            return Err(format!("saved key {position} does not exist"));
                        };
                        if !connection.api_keys.contains(kept) {
                            connection.api_keys.push(kept.clone());
                        }
                    }
                    ApiKeyEntry::Typed(key) => {
                        if let Some(i) = typed.iter().position(|t| *t == key.trim())
                            && !placed[i]
                            && let Some(new) = sealed.get(i)
                        {
                            placed[i] = true;
                            connection.api_keys.push(new.clone());
                        }
                    }
                }
            }
        }
        if let Some(existing) = existing {
            if input.api_keys.is_none() {
                connection.api_keys = existing.api_keys;
            }
            if input.custom_headers.is_none() {
                connection.custom_headers = existing.custom_headers;
            }
        }
        panelot_protocol::to_value(&connection).map_err(|e| e.to_string())
    }

    fn view(&self, stored: &Value) -> Option<ConnectionView> {
        let connection: Connection = panelot_protocol::from_value(stored.clone()).ok()?;
        Some(ConnectionView {
            id: ConnectionId::new(connection.id).ok()?,
            name: connection.name,
            kind: match connection.kind {
                WireFormat::OpenAi => ConnectionKind::Openai,
                WireFormat::Anthropic => ConnectionKind::Anthropic,
            },
            base_url: connection.base_url.as_str().to_owned(),
            key_count: connection.api_keys.len() as u32,
            enabled: connection.enabled,
            model_ids: connection.model_ids,
            header_names: connection.custom_headers.into_iter().map(|h| h.name).collect(),
            quirks: connection.quirks.flags().into_iter().map(|f| f.name().to_owned()).collect(),
            prices: connection
                .models
                .iter()
                .filter_map(|entry| {
                    let pricing = entry.pricing?;
                    Some(ModelPrice {
                        model_id: entry.id.clone(),
                        input: pricing.input,
                        output: pricing.output,
                        cache_read: pricing.cache_read,
                        cache_write: pricing.cache_write,
                    })
                })
                .collect(),
        })
    }

    fn quirk_names(&self) -> Vec<String> {
        QuirkFlag::ALL.iter().map(|f| f.name().to_owned()).collect()
    }

    fn templates(&self) -> Vec<ConnectionTemplateView> {
        TEMPLATES
            .iter()
            .map(|template| ConnectionTemplateView {
                id: template.id.to_owned(),
                name: template.name.to_owned(),
                kind: match template.wire {
                    WireFormat::OpenAi => "openai",
                    WireFormat::Anthropic => "anthropic",
                }
                .to_owned(),
                base_url: template.base_url.to_owned(),
                quirks: template.quirks.flags().into_iter().map(|f| f.name().to_owned()).collect(),
                key_required: template.key == KeyRequirement::Required,
            })
            .collect()
    }

    fn store_mcp(
        &self,
        id: &str,
        input: &McpServerInput,
        existing: Option<&Value>,
    ) -> Result<Value, String> {
        let existing: Option<StoredMcpServer> =
            existing.and_then(|stored| panelot_protocol::from_value(stored.clone()).ok());
        let server = StoredMcpServer::from_input(id, input, existing.as_ref(), &self.key)?;
        panelot_protocol::to_value(&server).map_err(|e| e.to_string())
    }

    fn view_mcp(&self, stored: &Value) -> Option<McpServerView> {
        let server: StoredMcpServer = panelot_protocol::from_value(stored.clone()).ok()?;
        Some(server.view())
    }
}

impl Vault {
    /// Seals a secret the host made (an MCP server's OAuth tokens, as JSON) for the engine to
    /// keep.
    pub fn seal(&self, plaintext: &str) -> Result<Value, String> {
        let sealed = SealedSecret::seal(&self.key, plaintext).map_err(|e| e.to_string())?;
        panelot_protocol::to_value(&sealed).map_err(|e| e.to_string())
    }

    /// Opens what [`Vault::seal`] sealed.
    pub fn open(&self, sealed: &Value) -> Result<String, String> {
        let sealed: SealedSecret =
            panelot_protocol::from_value(sealed.clone()).map_err(|e| e.to_string())?;
        sealed.open(&self.key).map_err(|e| e.to_string())
    }

    /// Opens a stored MCP server's secrets for the host's MCP client.
    pub fn open_mcp(&self, stored: &Value) -> Result<OpenedMcpServer, String> {
        let server: StoredMcpServer =
            panelot_protocol::from_value(stored.clone()).map_err(|e| e.to_string())?;
        server.open(&self.key)
    }
}

/// Prices a connection may hold: one per model, more than any endpoint lists for hand pricing.
const MAX_PRICES: usize = 256;

/// Model ids are names, not documents.
const MAX_MODEL_ID_CHARS: usize = 200;

/// `entries` with the prices of the form: each priced model's entry gets its price (made when
/// missing), every other entry loses its price, and an entry left with nothing to say is
/// dropped. The capabilities set by hand are kept.
fn with_prices(
    mut entries: Vec<ModelEntry>,
    prices: &[ModelPrice],
) -> Result<Vec<ModelEntry>, String> {
    if prices.len() > MAX_PRICES {
        return Err(format!("at most {MAX_PRICES} models can have a price"));
    }
    for entry in &mut entries {
        entry.pricing = None;
    }
    for (i, price) in prices.iter().enumerate() {
        let id = price.model_id.trim();
        if id.is_empty() || id.chars().count() > MAX_MODEL_ID_CHARS {
            return Err(format!(
                "a priced model needs an id of 1 to {MAX_MODEL_ID_CHARS} characters"
            ));
        }
        if prices[..i].iter().any(|p| p.model_id.trim() == id) {
            return Err(format!("the model {id} has two prices"));
        }
        // Decoding checked the numbers already; a vault may be handed input that was not decoded.
        let all = [Some(price.input), Some(price.output), price.cache_read, price.cache_write];
        if !all.into_iter().flatten().all(is_price) {
            return Err(format!(
                "the prices of {id} must be between 0 and {MAX_PRICE_USD_PER_MILLION} US dollars \
                 per million tokens"
            ));
        }
        let pricing = Pricing {
            input: price.input,
            output: price.output,
            cache_read: price.cache_read,
            cache_write: price.cache_write,
        };
        match entries.iter_mut().find(|entry| entry.id == id) {
            Some(entry) => entry.pricing = Some(pricing),
            None => entries.push(ModelEntry {
                id: id.to_owned(),
                pricing: Some(pricing),
                ..ModelEntry::default()
            }),
        }
    }
    entries.retain(|entry| entry != &ModelEntry { id: entry.id.clone(), ..ModelEntry::default() });
    Ok(entries)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use panelot_protocol::engine::HeaderInput;

    fn input(keys: Option<Vec<&str>>) -> ConnectionInput {
        ConnectionInput {
            id: None,
            name: "Local".into(),
            kind: ConnectionKind::Openai,
            base_url: "http://127.0.0.1:8080/v1/".into(),
            api_keys: keys
                .map(|k| k.into_iter().map(|k| ApiKeyEntry::Typed(k.to_owned())).collect()),
            enabled: true,
            model_ids: vec!["m1".into()],
            custom_headers: None,
            quirks: Vec::new(),
            prices: None,
        }
    }

    #[test]
    fn keys_are_sealed_kept_when_not_resent_and_never_viewed() {
        let vault = Vault::new(VaultKey::from_bytes([7; 32]));
        let id = ConnectionId::new("c-1").unwrap();
        let stored =
            vault.store(&id, &input(Some(vec!["sk-secret-1", "sk-secret-2"])), None).unwrap();
        assert!(!stored.to_string().contains("sk-secret"), "{stored}");
        let view = vault.view(&stored).unwrap();
        assert_eq!((view.key_count, view.base_url.as_str()), (2, "http://127.0.0.1:8080/v1"));
        assert!(!format!("{view:?}").contains("sk-secret"));
        // An edit without keys keeps the sealed ones.
        let edited = vault.store(&id, &input(None), Some(&stored)).unwrap();
        assert_eq!(edited["apiKeys"], stored["apiKeys"]);
        // A plain-HTTP remote URL is refused with a message that names no key.
        let mut remote = input(Some(vec!["sk-secret-3"]));
        remote.base_url = "http://api.example.com/v1".into();
        let err = vault.store(&id, &remote, None).unwrap_err();
        assert!(!err.contains("sk-secret"), "{err}");
    }

    fn saved(position: u32) -> ApiKeyEntry {
        ApiKeyEntry::Saved { saved: position }
    }

    fn typed(key: &str) -> ApiKeyEntry {
        ApiKeyEntry::Typed(key.to_owned())
    }

    /// Editing keys without seeing them: `{"saved": N}` keeps the stored key N where it is put;
    /// typed keys are added; a position that does not exist is refused.
    #[test]
    fn saved_keys_are_kept_by_position_next_to_new_ones() {
        let vault = Vault::new(VaultKey::from_bytes([7; 32]));
        let id = ConnectionId::new("c-1").unwrap();
        let stored =
            vault.store(&id, &input(Some(vec!["sk-secret-1", "sk-secret-2"])), None).unwrap();
        let edit = |keys: Vec<ApiKeyEntry>| {
            let mut edited = input(None);
            edited.api_keys = Some(keys);
            vault.store(&id, &edited, Some(&stored))
        };
        let added = edit(vec![saved(1), saved(2), typed("sk-secret-3")]).unwrap();
        assert_eq!(added["apiKeys"][0], stored["apiKeys"][0]);
        assert_eq!(added["apiKeys"][1], stored["apiKeys"][1]);
        assert_eq!(vault.view(&added).unwrap().key_count, 3);
        assert!(!added.to_string().contains("sk-secret"), "{added}");
        let swapped = edit(vec![saved(2), saved(1)]).unwrap();
        assert_eq!(swapped["apiKeys"][0], stored["apiKeys"][1]);
        assert_eq!(swapped["apiKeys"][1], stored["apiKeys"][0]);
        let removed = edit(vec![saved(2)]).unwrap();
        assert_eq!(removed["apiKeys"], serde_json::json!([stored["apiKeys"][1]]));
        assert_eq!(vault.view(&edit(Vec::new()).unwrap()).unwrap().key_count, 0);
        assert_eq!(edit(vec![saved(3)]).unwrap_err(), "saved key 3 does not exist");
        // A typed key is a key whatever it reads like: the old `saved key N` text is no
        // reference (and, with spaces, no key either).
        let literal = edit(vec![typed("saved key 1")]).unwrap_err();
        assert!(literal.contains("contains spaces"), "{literal}");
        // A new connection has nothing stored to keep.
        let mut new = input(None);
        new.api_keys = Some(vec![saved(1)]);
        assert!(vault.store(&id, &new, None).is_err());
        // On the wire a typed key is a string and a kept one `{"saved": N}`.
        let wire = serde_json::to_value(vec![typed("sk-1"), saved(2)]).unwrap();
        assert_eq!(wire, serde_json::json!(["sk-1", {"saved": 2}]));
    }

    #[test]
    fn headers_and_quirks_are_stored_kept_and_validated() {
        let vault = Vault::new(VaultKey::from_bytes([7; 32]));
        let id = ConnectionId::new("c-1").unwrap();
        let mut with = input(Some(vec!["sk-1"]));
        with.custom_headers = Some(vec![
            HeaderInput { name: "X-Api-Token".into(), value: "tok-secret".into() },
            HeaderInput { name: "X-Title".into(), value: "Panelot".into() },
        ]);
        with.quirks = vec!["noStreamOptions".into(), "noSystemRole".into()];
        let stored = vault.store(&id, &with, None).unwrap();
        assert!(!stored.to_string().contains("tok-secret"), "sensitive header sealed: {stored}");
        let view = vault.view(&stored).unwrap();
        assert_eq!(view.header_names, ["x-api-token", "x-title"]);
        assert_eq!(view.quirks, ["noStreamOptions", "noSystemRole"]);
        // Headers not resent are kept; quirks are what the form sends.
        let edited = vault.store(&id, &input(None), Some(&stored)).unwrap();
        assert_eq!(edited["customHeaders"], stored["customHeaders"]);
        assert!(vault.view(&edited).unwrap().quirks.is_empty());
        // Headers sent as an empty list are removed.
        let mut cleared = input(None);
        cleared.custom_headers = Some(Vec::new());
        let cleared = vault.store(&id, &cleared, Some(&stored)).unwrap();
        assert!(vault.view(&cleared).unwrap().header_names.is_empty());
        let mut bad = input(None);
        bad.quirks = vec!["noSuchQuirk".into()];
        assert!(vault.store(&id, &bad, None).unwrap_err().contains("noSuchQuirk"));
        let mut bad = input(None);
        bad.custom_headers = Some(vec![HeaderInput { name: "Host".into(), value: "x".into() }]);
        assert!(vault.store(&id, &bad, None).is_err());
        assert!(vault.quirk_names().contains(&"thinkTagReasoning".to_owned()));
    }

    fn price(model: &str, input: f64, output: f64) -> ModelPrice {
        ModelPrice { model_id: model.into(), input, output, cache_read: None, cache_write: None }
    }

    /// Prices set in the form become the connection's model entries (what the client prices
    /// calls with), come back in the view, are kept when not resent and are checked.
    #[test]
    fn prices_are_stored_as_model_entries_viewed_and_checked() {
        let vault = Vault::new(VaultKey::from_bytes([7; 32]));
        let id = ConnectionId::new("c-1").unwrap();
        let mut priced = input(None);
        let mut m1 = price("m1", 3.0, 15.0);
        m1.cache_read = Some(0.3);
        priced.prices = Some(vec![m1.clone(), price(" m2 ", 0.5, 1.5)]);
        let stored = vault.store(&id, &priced, None).unwrap();
        let connection: Connection = panelot_protocol::from_value(stored.clone()).unwrap();
        assert_eq!(
            crate::capabilities::pricing("m1", &connection.models),
            Some(Pricing { input: 3.0, output: 15.0, cache_read: Some(0.3), cache_write: None })
        );
        assert_eq!(vault.view(&stored).unwrap().prices, [m1, price("m2", 0.5, 1.5)]);
        // Not resent: kept. A capability set by hand survives a price change and its removal.
        let kept = vault.store(&id, &input(None), Some(&stored)).unwrap();
        assert_eq!(kept["models"], stored["models"]);
        let mut by_hand = stored.clone();
        by_hand["models"][0]["toolUse"] = serde_json::json!(false);
        let mut cleared = input(None);
        cleared.prices = Some(Vec::new());
        let cleared = vault.store(&id, &cleared, Some(&by_hand)).unwrap();
        assert_eq!(
            cleared["models"],
            serde_json::json!([{"id": "m1", "toolUse": false,
            "vision": null, "reasoning": null, "maxContext": null, "pricing": null}])
        );
        assert!(vault.view(&cleared).unwrap().prices.is_empty());
        // Out of range, unnamed and repeated prices are refused.
        for bad in [
            vec![price("m1", -1.0, 1.0)],
            vec![price("m1", 1.0, f64::NAN)],
            vec![price("m1", 1.0, MAX_PRICE_USD_PER_MILLION * 2.0)],
            vec![price(" ", 1.0, 1.0)],
            vec![price("m1", 1.0, 1.0), price("m1 ", 2.0, 2.0)],
        ] {
            let mut edit = input(None);
            edit.prices = Some(bad.clone());
            assert!(vault.store(&id, &edit, Some(&stored)).is_err(), "{bad:?}");
        }
        // On the wire a negative or huge price does not even decode.
        let wire = |input: f64| {
            panelot_protocol::from_value::<ModelPrice>(serde_json::json!(
                {"modelId": "m1", "input": input, "output": 1.0, "cacheWrite": input}
            ))
        };
        assert!(wire(2.5).is_ok());
        assert!(wire(-0.1).is_err());
        assert!(wire(1e12).is_err());
    }
}
