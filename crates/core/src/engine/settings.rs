//! Settings commands: read them, change the default model, policy and budget, save and delete
//! model connections. Connections are stored as the host's vault makes them (keys sealed); the
//! engine never sees how, and a view of a connection never carries a key.

use panelot_protocol::AgentEvent;
use panelot_protocol::ConnectionId;
use panelot_protocol::EventFrame;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ConnectionDeleteParams;
use panelot_protocol::engine::ConnectionInput;
use panelot_protocol::engine::ConnectionSaveParams;
use panelot_protocol::engine::ConnectionVerifiedEvent;
use panelot_protocol::engine::ConnectionVerifyParams;
use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PresetView;
use panelot_protocol::engine::SettingsStateEvent;
use panelot_protocol::engine::SettingsUpdateParams;
use panelot_protocol::engine::SettingsView;
use serde_json::Value;

use super::Decision;
use super::Effect;
use super::EffectId;
use super::Engine;
use super::InFlight;
use super::Outbox;
use super::PortId;
use super::ack;
use super::approvals::StoredRule;
use super::turns::SETTING_DEFAULT_MODEL;
use super::turns::SETTING_PERMISSION_POLICY;
use super::turns::SETTING_TURN_TOKEN_BUDGET;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// Setting holding the stored connections (as the vault makes them).
pub const SETTING_CONNECTIONS: &str = "connections";
/// Connections a profile may hold.
const MAX_CONNECTIONS: usize = 64;

/// Turns a connection from the settings form into its stored form (keys sealed) and back into
/// what the settings page may see. Implemented by the host with the providers' vault.
pub trait ConnectionVault {
    /// Validates `input` and makes its stored form; `existing` is the stored connection it
    /// replaces (its keys are kept when the form sends none). The error is shown to the user
    /// and never contains a key.
    fn store(
        &self,
        id: &ConnectionId,
        input: &ConnectionInput,
        existing: Option<&Value>,
    ) -> Result<Value, String>;

    /// What the settings page may see of a stored connection; `None` for one it cannot read.
    fn view(&self, stored: &Value) -> Option<ConnectionView>;

    /// Every provider quirk a connection can switch on.
    fn quirk_names(&self) -> Vec<String>;
}

/// Values a settings view shows instead of the stored ones: those of a change not yet
/// committed. `None` fields are read from the store.
#[derive(Default)]
pub(super) struct Overlay<'a> {
    pub(super) connections: Option<&'a [Value]>,
    pub(super) default_model: Option<Option<ModelChoice>>,
    pub(super) policy: Option<PermissionPolicy>,
    pub(super) budget: Option<Option<u64>>,
    pub(super) rules: Option<&'a [StoredRule]>,
    pub(super) presets: Option<&'a [PresetView]>,
}

fn stored_id(stored: &Value) -> Option<&str> {
    stored.get("id").and_then(Value::as_str)
}

fn encode(value: impl serde::Serialize) -> Result<Value, StoreError> {
    serde_json::to_value(value).map_err(|err| StoreError::Corrupt(err.to_string()))
}

impl<S: Store> Engine<S> {
    pub(super) async fn stored_connections(&self) -> Result<Vec<Value>, StoreError> {
        Ok(self.setting_as(SETTING_CONNECTIONS).await?.unwrap_or_default())
    }

    /// The settings as they are now, with what `overlay` holds in place of the stored values
    /// (a change about to be committed with the view that announces it).
    pub(super) async fn settings_view(
        &self,
        overlay: Overlay<'_>,
    ) -> Result<SettingsView, StoreError> {
        let stored;
        let connections = match overlay.connections {
            Some(list) => list,
            None => {
                stored = self.stored_connections().await?;
                &stored
            }
        };
        let default_model = match overlay.default_model {
            Some(model) => model,
            None => self.setting_as(SETTING_DEFAULT_MODEL).await?,
        };
        let permission_policy = match overlay.policy {
            Some(policy) => policy,
            None => self
                .setting_as(SETTING_PERMISSION_POLICY)
                .await?
                .unwrap_or(PermissionPolicy::Untrusted),
        };
        let turn_token_budget = match overlay.budget {
            Some(budget) => budget,
            None => self.setting_as(SETTING_TURN_TOKEN_BUDGET).await?,
        };
        let stored_rules;
        let rules = match overlay.rules {
            Some(rules) => rules,
            None => {
                stored_rules = self.stored_rules().await?;
                &stored_rules
            }
        };
        let presets = match overlay.presets {
            Some(presets) => presets.to_vec(),
            None => self.stored_presets().await?,
        };
        let (views, quirk_names) = match &self.vault {
            Some(vault) => {
                (connections.iter().filter_map(|c| vault.view(c)).collect(), vault.quirk_names())
            }
            None => (Vec::new(), Vec::new()),
        };
        Ok(SettingsView {
            connections: views,
            default_model,
            permission_policy,
            turn_token_budget,
            quirk_names,
            rules: rules.iter().filter_map(StoredRule::view).collect(),
            presets,
        })
    }

    /// `settings.get`.
    pub(super) async fn get_settings(
        &mut self,
        port: PortId,
        submission_id: &SubmissionId,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let settings = self.settings_view(Overlay::default()).await?;
        let event = AgentEvent::SettingsState(SettingsStateEvent {
            submission_id: Some(submission_id.clone()),
            settings,
        });
        out.sends.push((port, EventFrame::new(event)));
        Ok(())
    }

    pub(super) fn settings_changed(unit: UnitOfWork, op: &Op, settings: SettingsView) -> Decision {
        let state = AgentEvent::SettingsState(SettingsStateEvent { submission_id: None, settings });
        Decision { unit, answer: ack(op, None, None), events: vec![state], then: Vec::new() }
    }

    /// `settings.update`.
    pub(super) async fn update_settings(
        &mut self,
        op: &Op,
        p: &SettingsUpdateParams,
    ) -> Result<Decision, StoreError> {
        let mut unit = UnitOfWork::new();
        if let Some(model) = &p.patch.default_model {
            unit.push(WriteOp::PutSetting {
                key: SETTING_DEFAULT_MODEL.into(),
                value: encode(model)?,
            });
        }
        if let Some(policy) = p.patch.permission_policy {
            unit.push(WriteOp::PutSetting {
                key: SETTING_PERMISSION_POLICY.into(),
                value: encode(policy)?,
            });
        }
        let budget = p.patch.turn_token_budget.map(|b| (b > 0).then_some(b));
        if let Some(budget) = budget {
            unit.push(WriteOp::PutSetting {
                key: SETTING_TURN_TOKEN_BUDGET.into(),
                value: encode(budget)?,
            });
        }
        let overlay = Overlay {
            default_model: p.patch.default_model.clone().map(Some),
            policy: p.patch.permission_policy,
            budget,
            ..Overlay::default()
        };
        let settings = self.settings_view(overlay).await?;
        Ok(Self::settings_changed(unit, op, settings))
    }

    /// `connection.save`: sealed by the vault, stored with the receipt; a first connection
    /// with a model becomes the default model, so a new user can chat at once.
    pub(super) async fn save_connection(
        &mut self,
        op: &Op,
        p: &ConnectionSaveParams,
    ) -> Result<Decision, StoreError> {
        let Some(vault) = self.vault.clone() else {
            return Ok(Decision::rejected(
                op,
                ErrorCode::NotConfigured,
                "this host stores no connections",
            ));
        };
        let mut connections = self.stored_connections().await?;
        let id = match &p.connection.id {
            Some(id) => id.clone(),
            None => super::threads::fresh_id(&*self.ids, "c", ConnectionId::new)?,
        };
        let at = connections.iter().position(|c| stored_id(c) == Some(id.as_str()));
        if at.is_none() && connections.len() >= MAX_CONNECTIONS {
            let message = format!("at most {MAX_CONNECTIONS} connections can be stored");
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        let stored = match vault.store(&id, &p.connection, at.map(|i| &connections[i])) {
            Ok(stored) => stored,
            Err(message) => return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message)),
        };
        match at {
            Some(i) => connections[i] = stored,
            None => connections.push(stored),
        }
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutSetting {
            key: SETTING_CONNECTIONS.into(),
            value: encode(&connections)?,
        });
        let mut default_model = None;
        let has_default =
            self.store.setting(SETTING_DEFAULT_MODEL).await?.is_some_and(|v| !v.is_null());
        if !has_default
            && let Some(model) = p.connection.model_ids.first()
            && let Ok(model_id) = panelot_protocol::ModelId::new(model.clone())
        {
            let choice = ModelChoice { connection_id: id.clone(), model_id };
            unit.push(WriteOp::PutSetting {
                key: SETTING_DEFAULT_MODEL.into(),
                value: encode(&choice)?,
            });
            default_model = Some(Some(choice));
        }
        let overlay =
            Overlay { connections: Some(&connections), default_model, ..Overlay::default() };
        let settings = self.settings_view(overlay).await?;
        Ok(Self::settings_changed(unit, op, settings))
    }

    /// `connection.delete`.
    pub(super) async fn delete_connection(
        &mut self,
        op: &Op,
        p: &ConnectionDeleteParams,
    ) -> Result<Decision, StoreError> {
        let mut connections = self.stored_connections().await?;
        let before = connections.len();
        connections.retain(|c| stored_id(c) != Some(p.connection_id.as_str()));
        if connections.len() == before {
            let message = format!("connection {} does not exist", p.connection_id);
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutSetting {
            key: SETTING_CONNECTIONS.into(),
            value: encode(&connections)?,
        });
        let overlay = Overlay { connections: Some(&connections), ..Overlay::default() };
        let settings = self.settings_view(overlay).await?;
        Ok(Self::settings_changed(unit, op, settings))
    }

    /// `connection.verify`: a check of a stored connection, run by the host as an effect and
    /// answered to the asking port only.
    pub(super) async fn verify_connection(
        &mut self,
        port: PortId,
        p: ConnectionVerifyParams,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let connections = self.stored_connections().await?;
        if !connections.iter().any(|c| stored_id(c) == Some(p.connection_id.as_str())) {
            let message = format!("connection {} does not exist", p.connection_id);
            let op = Op::ConnectionVerify(p);
            out.sends.push((
                port,
                EventFrame::new(super::rejection(&op, ErrorCode::InvalidCommand, message)),
            ));
            return Ok(());
        }
        let connection = p.connection_id.to_string();
        let id = self.new_effect(InFlight::Verify {
            port,
            submission_id: p.submission_id,
            connection_id: p.connection_id,
        });
        out.effects.push(Effect::VerifyConnection { id, connection, model: p.model });
        Ok(())
    }

    /// The findings of a connection check: sent to the port that asked, if still connected.
    pub fn on_verify_done(&mut self, id: EffectId, report: ConnectionCheck) -> Outbox {
        let mut out = Outbox::default();
        if let Some(InFlight::Verify { port, submission_id, connection_id }) =
            self.in_flight.remove(&id)
            && self.ports.contains_key(&port)
        {
            let event = AgentEvent::ConnectionVerified(ConnectionVerifiedEvent {
                submission_id,
                connection_id,
                report,
            });
            out.sends.push((port, EventFrame::new(event)));
        }
        out
    }
}
