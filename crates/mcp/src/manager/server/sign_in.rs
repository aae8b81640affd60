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
use panelot_protocol::engine::McpStatus;
use panelot_providers::Http;
use panelot_providers::Timer;

use super::Inner;
use super::Server;
use super::TimerClock;
use crate::BearerChallenge;
use crate::bridge::Event;
use crate::oauth::AuthPlan;
use crate::oauth::OAuthClient;
use crate::oauth::OAuthError;
use crate::oauth::PendingAuthorization;
use crate::oauth::Random;
use crate::oauth::Scopes;
use crate::oauth::discover;

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
            })?;
        let (http, budgets) = (&*inner.http, &inner.options.budgets);
        let plan = discover(http, budgets, &self.spec.url, challenge, &self.stopped)
            .await
            .map_err(|err| self.failure(&err, None))?;
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
    /// Network failures name the origins the module fetched from, because a browser blocks
    /// them when the authorization server allows no cross-origin requests and Panelot has no
    /// access to its site; the module cannot ask for that access itself (no user gesture).
    fn failure(&self, err: &OAuthError, plan: Option<&AuthPlan>) -> McpStatus {
        if err.needs_user() {
            return McpStatus::NeedsAuthorization {
                reason: format!("the sign-in failed ({err}); press Sign in again"),
            };
        }
        if let OAuthError::Transport(_) = err {
            let origins = plan.map(|plan| self.foreign_origins(plan)).unwrap_or_default();
            let sites = match origins.is_empty() {
                true => "the authorization server's site".to_owned(),
                false => origins.join(" and "),
            };
            return McpStatus::Error {
                reason: format!(
                    "the sign-in failed ({err}); if the network is fine, the browser may be \
                     blocking Panelot from {sites}: allow Panelot to access it and sign in again"
                ),
            };
        }
        McpStatus::Error { reason: format!("the sign-in failed: {err}") }
    }

    /// The origins of the authorization server's endpoints that are not the MCP server's.
    fn foreign_origins(&self, plan: &AuthPlan) -> Vec<String> {
        let server = origin_of(&self.spec.url);
        let metadata = &plan.server_metadata;
        let mut origins: Vec<String> = Vec::new();
        let endpoints = [
            Some(metadata.issuer.as_str()),
            Some(metadata.token_endpoint.as_str()),
            metadata.registration_endpoint.as_deref(),
        ];
        for origin in endpoints.into_iter().flatten().filter_map(origin_of) {
            if Some(&origin) != server.as_ref() && !origins.contains(&origin) {
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
