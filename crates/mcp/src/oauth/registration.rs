//! Who Panelot is to an authorization server: a client id configured by the user, or one
//! obtained by dynamic client registration (RFC 7591) as a public client (no secret: an
//! extension cannot keep one).

use panelot_core::env::AbortSignal;
use panelot_providers::Http;
use serde::Deserialize;
use serde::Serialize;
use serde_json::json;

use super::AuthPlan;
use super::OAuthError;
use super::Step;
use super::transfer;
use super::uri::Url;
use crate::Budgets;

/// The name Panelot registers under, shown on consent pages.
const CLIENT_NAME: &str = "Panelot";

/// A client of one authorization server. Serializable so a registration is made once per
/// server, not per authorization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthClient {
    /// The client id.
    pub client_id: String,
    /// The redirect URI (`https://<extension-id>.chromiumapp.org/…` in the extension).
    pub redirect_uri: String,
    /// The issuer the client id belongs to; it means nothing to another server.
    pub issuer: String,
}

#[derive(Deserialize)]
struct RegistrationResponse {
    client_id: String,
}

impl OAuthClient {
    /// A client id the user configured for the authorization server of `plan`.
    pub fn preregistered(
        plan: &AuthPlan,
        client_id: impl Into<String>,
        redirect_uri: &str,
    ) -> Result<OAuthClient, OAuthError> {
        Url::parse_secure(redirect_uri)?;
        Ok(OAuthClient {
            client_id: client_id.into(),
            redirect_uri: redirect_uri.to_owned(),
            issuer: plan.issuer().to_owned(),
        })
    }

    /// Registers Panelot with the authorization server of `plan` (RFC 7591): a public client
    /// using the authorization code and refresh token grants, redirecting to `redirect_uri`.
    pub async fn register<H: Http>(
        http: &H,
        budgets: &Budgets,
        plan: &AuthPlan,
        redirect_uri: &str,
        abort: &AbortSignal,
    ) -> Result<OAuthClient, OAuthError> {
        Url::parse_secure(redirect_uri)?;
        let endpoint = plan
            .server_metadata
            .registration_endpoint
            .as_deref()
            .ok_or(OAuthError::NoRegistration)?;
        let endpoint = Url::parse_secure(endpoint)?;
        let body = json!({
            "client_name": CLIENT_NAME,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        });
        let body = serde_json::to_vec(&body).map_err(|err| OAuthError::Malformed {
            step: Step::Registration,
            reason: err.to_string(),
        })?;
        let limit = budgets.max_auth_document_bytes;
        let answer = transfer::post(
            http,
            limit,
            Step::Registration,
            &endpoint,
            "application/json",
            body,
            abort,
        )
        .await?;
        if !answer.is_success() {
            return Err(answer.status_error(Step::Registration));
        }
        let registered: RegistrationResponse = answer.decode(Step::Registration)?;
        if registered.client_id.is_empty() {
            return Err(OAuthError::Malformed {
                step: Step::Registration,
                reason: "the client_id is empty".to_owned(),
            });
        }
        Ok(OAuthClient {
            client_id: registered.client_id,
            redirect_uri: redirect_uri.to_owned(),
            issuer: plan.issuer().to_owned(),
        })
    }
}
