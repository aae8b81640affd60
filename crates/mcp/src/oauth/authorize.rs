//! The browser leg: PKCE (RFC 7636, S256 only) and `state`, the authorization URL the host
//! opens, and the redirect the browser comes back with.

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use panelot_core::env::AbortSignal;
use panelot_core::env::Clock;
use panelot_providers::Http;
use serde::Deserialize;
use serde::Serialize;
use sha2::Digest as _;
use sha2::Sha256;

use super::AuthPlan;
use super::Credentials;
use super::OAuthClient;
use super::OAuthError;
use super::Random;
use super::uri;
use super::uri::Url;
use crate::Budgets;

/// Bytes of randomness in a PKCE verifier: 32 bytes are 43 base64url characters, the
/// shortest verifier RFC 7636 allows, with 256 bits of entropy.
const VERIFIER_BYTES: usize = 32;
/// Bytes of randomness in `state`.
const STATE_BYTES: usize = 16;
/// Bytes of an `error_description` kept.
const MAX_DESCRIPTION_BYTES: usize = 500;

/// A set of OAuth scopes (space-separated on the wire), ordered so URLs are deterministic.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scopes(BTreeSet<String>);

impl Scopes {
    /// The scopes of a space-separated `scope` value.
    pub fn parse(scope: &str) -> Scopes {
        Scopes(scope.split_ascii_whitespace().map(str::to_owned).collect())
    }

    /// Both sets together (a step-up keeps what was granted and adds what is asked).
    pub fn union(&self, other: &Scopes) -> Scopes {
        Scopes(self.0.union(&other.0).cloned().collect())
    }

    /// Whether every scope of `other` is here.
    pub fn contains_all(&self, other: &Scopes) -> bool {
        other.0.is_subset(&self.0)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The space-separated form.
    pub fn to_scope(&self) -> String {
        self.0.iter().map(String::as_str).collect::<Vec<_>>().join(" ")
    }
}

impl FromIterator<String> for Scopes {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        Scopes(iter.into_iter().filter(|scope| !scope.is_empty()).collect())
    }
}

/// An authorization the user is giving in the browser: what is needed to check the redirect
/// and redeem its code. Serializable so it survives a worker restart; it holds the PKCE
/// verifier, so the host keeps it out of logs and drops it once finished.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAuthorization {
    plan: AuthPlan,
    client: OAuthClient,
    verifier: String,
    state: String,
    scopes: Scopes,
}

impl PendingAuthorization {
    /// Starts an authorization of `client` for `scopes` (see [`AuthPlan::default_scopes`]):
    /// the URL to open in the browser, and the pending authorization to finish with the URL
    /// the browser comes back to.
    pub fn start(
        plan: &AuthPlan,
        client: &OAuthClient,
        random: &dyn Random,
        scopes: &Scopes,
    ) -> Result<(String, PendingAuthorization), OAuthError> {
        if client.issuer != plan.issuer() {
            return Err(OAuthError::WrongBinding {
                bound: client.issuer.clone(),
                asked: plan.issuer().to_owned(),
            });
        }
        let endpoint = Url::parse_secure(&plan.server_metadata.authorization_endpoint)?;
        let verifier = random_text(random, VERIFIER_BYTES);
        let state = random_text(random, STATE_BYTES);
        let challenge = code_challenge(&verifier);
        let scope = scopes.to_scope();
        let mut params = vec![
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", client.redirect_uri.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
        ];
        if !scope.is_empty() {
            params.push(("scope", scope.as_str()));
        }
        params.push(("resource", plan.resource.as_str()));
        let mut url = endpoint.to_text();
        // The endpoint may carry a query of its own (RFC 6749 §3.1 keeps it).
        url.push(if endpoint.query.is_some() { '&' } else { '?' });
        url.push_str(&uri::form_encode(&params));
        let pending = PendingAuthorization {
            plan: plan.clone(),
            client: client.clone(),
            verifier,
            state,
            scopes: scopes.clone(),
        };
        Ok((url, pending))
    }

    /// The `state` sent (to match a redirect with its pending authorization).
    pub fn state(&self) -> &str {
        &self.state
    }

    /// The scopes asked for.
    pub fn scopes(&self) -> &Scopes {
        &self.scopes
    }

    /// Checks the URL the browser came back to and redeems its code for credentials.
    pub async fn finish<H: Http>(
        self,
        http: &H,
        budgets: &Budgets,
        clock: &dyn Clock,
        redirect_url: &str,
        abort: &AbortSignal,
    ) -> Result<Credentials, OAuthError> {
        let code = self.code(redirect_url)?;
        Credentials::redeem(
            http,
            budgets,
            clock,
            credentials_request(&self.plan, &self.client, &self.scopes),
            &code,
            &self.verifier,
            abort,
        )
        .await
    }

    /// The code of redirect `redirect_url`, after checking it comes back to our redirect URI
    /// with our `state` (RFC 6749 §10.12) and, when the server says who it is (RFC 9207
    /// `iss`), from our issuer.
    pub(crate) fn code(&self, redirect_url: &str) -> Result<String, OAuthError> {
        let redirect = Url::parse(redirect_url)?;
        let expected = Url::parse(&self.client.redirect_uri)?;
        if redirect.origin() != expected.origin() || redirect.path != expected.path {
            return Err(OAuthError::RedirectMismatch);
        }
        let pairs = redirect.query_pairs();
        let param =
            |name: &str| pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
        if param("state") != Some(self.state.as_str()) {
            return Err(OAuthError::StateMismatch);
        }
        if let Some(iss) = param("iss")
            && iss != self.plan.issuer()
        {
            return Err(OAuthError::IssuerMismatch {
                expected: self.plan.issuer().to_owned(),
                found: uri::shown(iss),
            });
        }
        if let Some(error) = param("error") {
            let description = param("error_description").map(|text| {
                let mut text = text.to_owned();
                crate::validate::cut(&mut text, MAX_DESCRIPTION_BYTES);
                text
            });
            return Err(OAuthError::Denied { error: uri::shown(error), description });
        }
        match param("code") {
            Some(code) if !code.is_empty() => Ok(code.to_owned()),
            _ => Err(OAuthError::NoCode),
        }
    }
}

impl std::fmt::Debug for PendingAuthorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The verifier redeems the code: never in logs.
        f.debug_struct("PendingAuthorization")
            .field("resource", &self.plan.resource)
            .field("issuer", &self.plan.issuer())
            .field("client_id", &self.client.client_id)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// What credentials are bound to and where they are refreshed.
pub(crate) struct CredentialsRequest {
    pub(crate) resource: String,
    pub(crate) issuer: String,
    pub(crate) token_endpoint: String,
    pub(crate) client: OAuthClient,
    pub(crate) scopes: Scopes,
}

fn credentials_request(
    plan: &AuthPlan,
    client: &OAuthClient,
    scopes: &Scopes,
) -> CredentialsRequest {
    CredentialsRequest {
        resource: plan.resource.clone(),
        issuer: plan.issuer().to_owned(),
        token_endpoint: plan.server_metadata.token_endpoint.clone(),
        client: client.clone(),
        scopes: scopes.clone(),
    }
}

/// `bytes` random bytes as base64url without padding (all unreserved characters).
fn random_text(random: &dyn Random, bytes: usize) -> String {
    let mut buffer = vec![0; bytes];
    random.fill(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

/// The S256 code challenge of `verifier` (RFC 7636 §4.2).
pub(crate) fn code_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
#[path = "authorize_tests.rs"]
mod tests;
