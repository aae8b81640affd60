//! Tokens: redeeming a code, refreshing, and the bearer header, bound to one resource, issuer
//! and client.

use panelot_core::env::AbortSignal;
use panelot_core::env::Clock;
use panelot_providers::HeaderValue;
use panelot_providers::Http;
use serde::Deserialize;
use serde::Serialize;

use super::AuthPlan;
use super::OAuthClient;
use super::OAuthError;
use super::PendingAuthorization;
use super::Random;
use super::Scopes;
use super::Step;
use super::authorize::CredentialsRequest;
use super::discovery::covers;
use super::transfer;
use super::uri;
use super::uri::Url;
use crate::BearerChallenge;
use crate::Budgets;

/// A token is treated as expired this long before its end, so it does not die in flight.
const EXPIRY_MARGIN_MS: u64 = 30_000;
/// Bytes of an `error_description` kept.
const MAX_DESCRIPTION_BYTES: usize = 500;

/// An access token (and maybe a refresh token) for one resource, from one issuer, for one
/// client. Serializable for the host's sealed storage; its `Debug` shows no token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    resource: String,
    issuer: String,
    token_endpoint: String,
    client: OAuthClient,
    access_token: String,
    refresh_token: Option<String>,
    /// Milliseconds since the Unix epoch by the host's clock; `None` when the server did not
    /// say (`expires_in` is optional).
    expires_at_ms: Option<u64>,
    scopes: Scopes,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    token_type: String,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

#[derive(Deserialize)]
struct TokenErrorResponse {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

impl Credentials {
    /// The canonical resource URI they are for.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The issuer that granted them.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The client they were granted to (reused for a step-up or a new authorization).
    pub fn client(&self) -> &OAuthClient {
        &self.client
    }

    /// The scopes granted.
    pub fn scopes(&self) -> &Scopes {
        &self.scopes
    }

    /// When the access token expires (milliseconds since the Unix epoch), if known.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.expires_at_ms
    }

    /// Whether the access token is expired or about to be (within 30 s), by `clock`.
    pub fn is_expired(&self, clock: &dyn Clock) -> bool {
        self.expires_at_ms.is_some_and(|at| clock.now_ms().saturating_add(EXPIRY_MARGIN_MS) >= at)
    }

    /// Whether they can be refreshed without the user.
    pub fn can_refresh(&self) -> bool {
        self.refresh_token.is_some()
    }

    /// The `Authorization` header for requests to the MCP server at `server_url`: refused for
    /// a server the credentials are not bound to, and once expired (refresh first).
    pub fn authorization(
        &self,
        server_url: &str,
        clock: &dyn Clock,
    ) -> Result<HeaderValue, OAuthError> {
        let server = Url::parse(server_url)?;
        let bound = Url::parse(&self.resource)?;
        if !covers(&bound, &server) {
            return Err(OAuthError::WrongBinding {
                bound: self.resource.clone(),
                asked: uri::shown(server_url),
            });
        }
        if self.is_expired(clock) {
            return Err(OAuthError::Expired);
        }
        Ok(HeaderValue::Secret(format!("Bearer {}", self.access_token)))
    }

    /// New credentials from the refresh token (RFC 6749 §6, with the RFC 8707 `resource`).
    /// When the server sends no new refresh token the old one is kept; when it rotates it, the
    /// old one is gone and the host must store the result before anything else.
    pub async fn refresh<H: Http>(
        &self,
        http: &H,
        budgets: &Budgets,
        clock: &dyn Clock,
        abort: &AbortSignal,
    ) -> Result<Credentials, OAuthError> {
        let refresh_token = self.refresh_token.as_deref().ok_or(OAuthError::NoRefreshToken)?;
        let form = uri::form_encode(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", &self.client.client_id),
            ("resource", &self.resource),
        ]);
        let request = CredentialsRequest {
            resource: self.resource.clone(),
            issuer: self.issuer.clone(),
            token_endpoint: self.token_endpoint.clone(),
            client: self.client.clone(),
            scopes: self.scopes.clone(),
        };
        let mut refreshed = token_request(http, budgets, clock, request, form, abort).await?;
        if refreshed.refresh_token.is_none() {
            refreshed.refresh_token = self.refresh_token.clone();
        }
        Ok(refreshed)
    }

    /// The scopes a step-up asks for when the server answered 403 with `challenge`: what was
    /// granted plus what the challenge names. `None` when the challenge is not
    /// `insufficient_scope` or asks for nothing new (asking again would loop).
    pub fn step_up_scopes(&self, challenge: &BearerChallenge) -> Option<Scopes> {
        if challenge.error.as_deref() != Some("insufficient_scope") {
            return None;
        }
        let asked = Scopes::parse(challenge.scope.as_deref()?);
        if self.scopes.contains_all(&asked) {
            return None;
        }
        Some(self.scopes.union(&asked))
    }

    /// Starts the step-up authorization for `challenge` (a 403 `insufficient_scope`) with
    /// the same client, checking `plan` is for the same resource and issuer.
    pub fn step_up(
        &self,
        plan: &AuthPlan,
        challenge: &BearerChallenge,
        random: &dyn Random,
    ) -> Result<Option<(String, PendingAuthorization)>, OAuthError> {
        if plan.resource != self.resource || plan.issuer() != self.issuer {
            return Err(OAuthError::WrongBinding {
                bound: format!("{} from {}", self.resource, self.issuer),
                asked: format!("{} from {}", plan.resource, plan.issuer()),
            });
        }
        let Some(scopes) = self.step_up_scopes(challenge) else { return Ok(None) };
        PendingAuthorization::start(plan, &self.client, random, &scopes).map(Some)
    }

    /// Redeems `code` with its PKCE `verifier` (RFC 6749 §4.1.3, RFC 7636 §4.5).
    pub(crate) async fn redeem<H: Http>(
        http: &H,
        budgets: &Budgets,
        clock: &dyn Clock,
        request: CredentialsRequest,
        code: &str,
        verifier: &str,
        abort: &AbortSignal,
    ) -> Result<Credentials, OAuthError> {
        let form = uri::form_encode(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &request.client.redirect_uri),
            ("client_id", &request.client.client_id),
            ("code_verifier", verifier),
            ("resource", &request.resource),
        ]);
        token_request(http, budgets, clock, request, form, abort).await
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("resource", &self.resource)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client.client_id)
            .field("expires_at_ms", &self.expires_at_ms)
            .field("scopes", &self.scopes)
            .field("refreshable", &self.refresh_token.is_some())
            .finish_non_exhaustive()
    }
}

/// POSTs `form` to the token endpoint and reads the tokens.
async fn token_request<H: Http>(
    http: &H,
    budgets: &Budgets,
    clock: &dyn Clock,
    request: CredentialsRequest,
    form: String,
    abort: &AbortSignal,
) -> Result<Credentials, OAuthError> {
    let endpoint = Url::parse_secure(&request.token_endpoint)?;
    let limit = budgets.max_auth_document_bytes;
    let content_type = "application/x-www-form-urlencoded";
    let answer =
        transfer::post(http, limit, Step::Token, &endpoint, content_type, form.into_bytes(), abort)
            .await?;
    if !answer.is_success() {
        // RFC 6749 §5.2: 400 (or 401) with `error`.
        if let Ok(refused) = answer.decode::<TokenErrorResponse>(Step::Token) {
            let description = refused.error_description.map(|mut text| {
                crate::validate::cut(&mut text, MAX_DESCRIPTION_BYTES);
                text
            });
            return Err(OAuthError::TokenRefused {
                error: uri::shown(&refused.error),
                description,
            });
        }
        return Err(answer.status_error(Step::Token));
    }
    let tokens: TokenResponse = answer.decode(Step::Token)?;
    if !tokens.token_type.eq_ignore_ascii_case("bearer") {
        return Err(OAuthError::Malformed {
            step: Step::Token,
            reason: format!("token type {:?} is not Bearer", uri::shown(&tokens.token_type)),
        });
    }
    // A token that cannot go into a header would fail every request later; say so now.
    if tokens.access_token.is_empty()
        || !tokens.access_token.bytes().all(|b| (0x21..=0x7e).contains(&b))
    {
        return Err(OAuthError::Malformed {
            step: Step::Token,
            reason: "the access token is empty or not visible ASCII".to_owned(),
        });
    }
    let expires_at_ms = tokens
        .expires_in
        .map(|seconds| clock.now_ms().saturating_add(seconds.saturating_mul(1_000)));
    let scopes = tokens.scope.as_deref().map_or(request.scopes, Scopes::parse);
    Ok(Credentials {
        resource: request.resource,
        issuer: request.issuer,
        token_endpoint: request.token_endpoint,
        client: request.client,
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        expires_at_ms,
        scopes,
    })
}
