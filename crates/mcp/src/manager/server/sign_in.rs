//! Signing in to an OAuth server, for the user's Sign in only: discovery from the server's
//! challenge, the client (a configured id, the last one used, or a new registration), PKCE
//! through the host's [`Browser`], the code redeemed, the credentials put on the client and
//! handed to the engine, which seals and keeps them.
//!
//! The pending authorization (its PKCE verifier and `state`) lives only in this future while
//! the browser window is open, a matter of seconds: a worker restart during sign-in loses it,
//! and the user presses Sign in again. Keeping it would mean storing a verifier for a window
//! the restart has already orphaned.

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::model::LocalFuture;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpStatus;
use panelot_providers::Http;
use panelot_providers::Timer;

use super::Inner;
use super::Server;
use super::TimerClock;
use crate::BearerChallenge;
use crate::bridge::Event;
use crate::oauth::AuthPlan;
use crate::oauth::AuthorizationServerMetadata;
use crate::oauth::OAuthClient;
use crate::oauth::OAuthError;
use crate::oauth::PendingAuthorization;
use crate::oauth::Random;
use crate::oauth::Scopes;
use crate::oauth::discover;
use crate::oauth::resource_metadata;

/// The browser's part of an OAuth sign-in, from the host: `chrome.identity` and
/// `crypto.getRandomValues` in the service worker, a test double natively.
pub trait Browser {
    /// Where the authorization server sends the browser back
    /// (`chrome.identity.getRedirectURL("mcp")`), or why there is none.
    fn redirect_uri(&self) -> Result<String, String>;

    /// Randomness for the PKCE verifier and `state` (see [`Random`]'s duty).
    fn random(&self) -> &dyn Random;

    /// Opens `url` for the user in an interactive window and resolves with the URL the
    /// authorization server redirected to, or why there is none (the window was closed, the
    /// browser refused). Called only for the user's Sign in, never for background work.
    fn authorize(&self, url: String) -> LocalFuture<'static, Result<String, String>>;
}

/// No browser: every sign-in fails, saying so. For hosts that cannot show one.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBrowser;

impl Browser for NoBrowser {
    fn redirect_uri(&self) -> Result<String, String> {
        Err("this host has no browser to sign in with".to_owned())
    }

    fn random(&self) -> &dyn Random {
        self
    }

    fn authorize(&self, _url: String) -> LocalFuture<'static, Result<String, String>> {
        Box::pin(async { Err("this host has no browser to sign in with".to_owned()) })
    }
}

impl Random for NoBrowser {
    fn fill(&self, _bytes: &mut [u8]) {
        // Unreachable from the manager: it asks `redirect_uri` first, which fails, so no
        // authorization ever starts with these bytes (and `authorize` refuses as well).
    }
}

impl<H: Http + 'static, T: Timer + 'static> Server<H, T> {
    /// Signs in through the browser, from `challenge` (the server's 401, or a 403
    /// `insufficient_scope` for a step-up); on success the token is on the client and the
    /// engine has the credentials. The status to show when it fails.
    pub(super) async fn sign_in(
        &self,
        inner: &Inner<H, T>,
        challenge: Option<&BearerChallenge>,
    ) -> Result<(), McpStatus> {
        let browser = &*inner.browser;
        // Still a server that needs a sign-in, only not one this host can give.
        let redirect_uri =
            browser.redirect_uri().map_err(|reason| McpStatus::NeedsAuthorization {
                reason: format!("the server needs a sign-in, which cannot run here: {reason}"),
                origins: Vec::new(),
            })?;
        let (http, budgets) = (&*inner.http, &inner.options.budgets);
        let plan = discover(http, budgets, &self.spec.url, challenge, &self.stopped)
            .await
            .map_err(|err| self.failure(&err, None))?;
        self.learned(&plan, challenge);
        let client = self
            .oauth_client_for(inner, &plan, &redirect_uri)
            .await
            .map_err(|err| self.failure(&err, Some(&plan)))?;
        let scopes = self.scopes_for(&plan, challenge)?;
        let (url, pending) = PendingAuthorization::start(&plan, &client, browser.random(), &scopes)
            .map_err(|err| self.failure(&err, Some(&plan)))?;
        let redirect = match race(browser.authorize(url), self.stopped.aborted()).await {
            Either::Left(Ok(redirect)) => redirect,
            Either::Left(Err(reason)) => {
                return Err(McpStatus::NeedsAuthorization {
                    reason: format!("the sign-in did not finish ({reason}); press Sign in again"),
                    origins: Vec::new(),
                });
            }
            // Closed meanwhile: nothing more is reported for it.
            Either::Right(()) => return Err(McpStatus::Disconnected),
        };
        let clock = TimerClock(&*inner.timer);
        let credentials = pending
            .finish(http, budgets, &clock, &redirect, &self.stopped)
            .await
            .map_err(|err| self.failure(&err, Some(&plan)))?;
        let header = credentials
            .authorization(&self.spec.url, &clock)
            .map_err(|err| self.failure(&err, Some(&plan)))?;
        self.client.set_authorization(Some(header));
        *self.oauth_client.borrow_mut() = Some(client);
        *self.credentials.borrow_mut() = Some(credentials.clone());
        if !self.stopped.is_aborted() {
            inner.emit(Event::Credentials { server: self.spec.id.clone(), credentials });
        }
        Ok(())
    }

    /// Who Panelot is to the authorization server of `plan`: the configured client id, else
    /// the client of the last sign-in with that server, else a new registration (RFC 7591).
    async fn oauth_client_for(
        &self,
        inner: &Inner<H, T>,
        plan: &AuthPlan,
        redirect_uri: &str,
    ) -> Result<OAuthClient, OAuthError> {
        if let Some(client_id) = &self.spec.oauth_client_id {
            return OAuthClient::preregistered(plan, client_id.clone(), redirect_uri);
        }
        let kept =
            self.oauth_client.borrow().clone().filter(|client| {
                client.issuer == plan.issuer() && client.redirect_uri == redirect_uri
            });
        match kept {
            Some(client) => Ok(client),
            None => {
                let budgets = &inner.options.budgets;
                OAuthClient::register(&*inner.http, budgets, plan, redirect_uri, &self.stopped)
                    .await
            }
        }
    }

    /// The scopes to ask for: for a step-up, what was granted plus what the server asks; else
    /// the challenge's or the resource's (see [`AuthPlan::default_scopes`]).
    fn scopes_for(
        &self,
        plan: &AuthPlan,
        challenge: Option<&BearerChallenge>,
    ) -> Result<Scopes, McpStatus> {
        let Some(challenge) =
            challenge.filter(|c| c.error.as_deref() == Some("insufficient_scope"))
        else {
            return Ok(plan.default_scopes());
        };
        let asked = Scopes::parse(challenge.scope.as_deref().unwrap_or_default());
        let credentials = self.credentials.borrow().clone();
        let Some(credentials) = credentials else {
            let resource = Scopes::from_iter(plan.resource_metadata.scopes_supported.clone());
            return Ok(resource.union(&asked));
        };
        match credentials.step_up_scopes(challenge) {
            Some(scopes) => Ok(scopes),
            // Asking again for what is granted would loop through the browser for nothing.
            None => Err(McpStatus::Error {
                reason: format!(
                    "the server refuses with insufficient_scope although the sign-in grants {}",
                    credentials.scopes().to_scope()
                ),
            }),
        }
    }

    /// A failed sign-in step as a status: the user can try again, or it needs fixing first.
    /// Network failures ask for a sign-in again, naming the origins the module fetches from:
    /// a browser blocks them when the authorization server allows no cross-origin requests and
    /// Panelot has no access to its site, and the settings' Sign in asks for that access inside
    /// the click (the module cannot: it has no user gesture).
    fn failure(&self, err: &OAuthError, plan: Option<&AuthPlan>) -> McpStatus {
        if err.needs_user() {
            return McpStatus::NeedsAuthorization {
                reason: format!("the sign-in failed ({err}); press Sign in again"),
                origins: Vec::new(),
            };
        }
        if let OAuthError::Transport(_) = err {
            let server = origin_of(&self.spec.url);
            let foreign: Vec<String> = plan
                .map(|plan| self.involved(None, Some(plan.issuer()), Some(&plan.server_metadata)))
                .unwrap_or_default()
                .into_iter()
                .filter(|origin| Some(origin) != server.as_ref())
                .collect();
            let sites = match foreign.is_empty() {
                true => "the authorization server's site".to_owned(),
                false => foreign.join(" and "),
            };
            return McpStatus::NeedsAuthorization {
                reason: format!(
                    "the sign-in failed ({err}); if the network is fine, the browser may be \
                     blocking Panelot from {sites}: press Sign in to allow Panelot to access it \
                     and sign in again"
                ),
                origins: Vec::new(),
            };
        }
        McpStatus::Error { reason: format!("the sign-in failed: {err}") }
    }

    /// Adds to a "needs sign-in" status the origins its sign-in fetches from, so that the
    /// settings' Sign in can ask the browser for access to exactly them inside the click,
    /// before the module needs it. Learned by discovery (metadata only: no registration, no
    /// window), once per server.
    pub(super) async fn name_sign_in_origins(&self, inner: &Inner<H, T>) {
        let McpStatus::NeedsAuthorization { reason, origins } = self.status() else { return };
        if !origins.is_empty() || self.spec.auth != McpAuth::Oauth {
            return;
        }
        let origins = self.sign_in_origins(inner).await;
        self.set_status(inner, McpStatus::NeedsAuthorization { reason, origins });
    }

    /// The origins a sign-in fetches from (see [`Server::involved`]): all of them once
    /// discovery succeeded, else as far as it got (the authorization server the resource names,
    /// whose metadata may be out of reach until Panelot has access to its site).
    async fn sign_in_origins(&self, inner: &Inner<H, T>) -> Vec<String> {
        let (known, challenge) = {
            let state = self.state.borrow();
            (state.sign_in_origins.clone(), state.challenge.clone())
        };
        if !known.is_empty() {
            return known;
        }
        let (http, budgets) = (&*inner.http, &inner.options.budgets);
        let challenge = challenge.as_ref();
        if let Ok(plan) = discover(http, budgets, &self.spec.url, challenge, &self.stopped).await {
            return self.learned(&plan, challenge);
        }
        let issuer = resource_metadata(http, budgets, &self.spec.url, challenge, &self.stopped)
            .await
            .ok()
            .and_then(|(metadata, _)| metadata.authorization_servers.into_iter().next());
        self.involved(challenge, issuer.as_deref(), None)
    }

    /// Keeps the origins of a complete discovery for the statuses to come; them.
    fn learned(&self, plan: &AuthPlan, challenge: Option<&BearerChallenge>) -> Vec<String> {
        let origins = self.involved(challenge, Some(plan.issuer()), Some(&plan.server_metadata));
        self.state.borrow_mut().sign_in_origins.clone_from(&origins);
        origins
    }

    /// The origins the module fetches from to sign in: the MCP server's, the resource
    /// metadata's when the challenge puts it elsewhere, the authorization server's (`issuer`,
    /// where its metadata is), its token and registration endpoints'; each once, the server's
    /// first. Not the authorization endpoint's: the browser's sign-in window goes there, and
    /// the window needs no host access.
    fn involved(
        &self,
        challenge: Option<&BearerChallenge>,
        issuer: Option<&str>,
        metadata: Option<&AuthorizationServerMetadata>,
    ) -> Vec<String> {
        let endpoints = [
            Some(self.spec.url.as_str()),
            challenge.and_then(|c| c.resource_metadata.as_deref()),
            issuer,
            metadata.map(|m| m.token_endpoint.as_str()),
            metadata.and_then(|m| m.registration_endpoint.as_deref()),
        ];
        let mut origins: Vec<String> = Vec::new();
        for origin in endpoints.into_iter().flatten().filter_map(origin_of) {
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        origins
    }
}

/// `scheme://host[:port]` of an absolute URL.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    // Credentials in the authority are not part of the origin (and not for a status line).
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    (!host.is_empty()).then(|| format!("{}://{}", scheme.to_ascii_lowercase(), host))
}

#[cfg(test)]
#[path = "sign_in_tests.rs"]
mod tests;
