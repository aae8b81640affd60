//! One enabled server: its client, status and last good catalog, connecting (single-flight),
//! the standalone stream with backoff, refreshing after `tools/list_changed`, and the
//! [`ServerHandler`] that turns what the server sends on its own into events. Signing in is
//! in `sign_in`.

mod sign_in;

use std::cell::RefCell;
use std::rc::Rc;
use std::rc::Weak;

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::env::AbortHandle;
use panelot_core::env::AbortSignal;
use panelot_core::env::Clock;
use panelot_core::model::LocalFuture;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpStatus;
use panelot_providers::HeaderValue;
use panelot_providers::Http;
use panelot_providers::Timer;
use panelot_providers::Wait;

use super::Inner;
use super::oneshot;
use super::wording::SIGN_IN_FROM_SETTINGS;
use super::wording::status_after;
use crate::BearerChallenge;
use crate::Listened;
use crate::McpClient;
use crate::ResumePoint;
use crate::ServerConfig;
use crate::ServerHandler;
use crate::ServerNotification;
use crate::bridge::Event;
use crate::bridge::ServerSpec;
use crate::error::McpError;
use crate::model::ElicitAction;
use crate::model::ElicitRequest;
use crate::model::ElicitResult;
use crate::names::ServerSlug;
use crate::oauth::Credentials;
use crate::oauth::OAuthClient;
use crate::validate::ToolCatalog;

pub use sign_in::Browser;
pub use sign_in::NoBrowser;

/// Who asked for a connect: only the user may be sent to a sign-in window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Interaction {
    /// Sign in / Connect in the settings.
    User,
    /// A startup connect, a call, a listing.
    Background,
}

/// One enabled server.
pub(super) struct Server<H, T> {
    /// As configured; a different spec makes a new `Server`.
    pub(super) spec: ServerSpec,
    pub(super) client: McpClient<Rc<H>, Rc<T>>,
    state: RefCell<State>,
    /// The OAuth sign-in, when the server has one.
    credentials: RefCell<Option<Credentials>>,
    /// The OAuth client of the last sign-in, reused by the next one (no new registration).
    oauth_client: RefCell<Option<OAuthClient>>,
    /// A 403 `insufficient_scope` challenge a call got: the next sign-in asks for its scopes.
    step_up: RefCell<Option<BearerChallenge>>,
    /// Fired when the server is closed: ends its stream, connects and refreshes.
    stop: AbortHandle,
    stopped: AbortSignal,
}

#[derive(Default)]
struct State {
    status: McpStatus,
    /// The last good catalog; `None` until the first listing succeeds.
    catalog: Option<ToolCatalog>,
    /// `Some` while a connect is under way: those waiting for it to end.
    connecting: Option<Vec<oneshot::Sender<()>>>,
    listening: bool,
    refresh_pending: bool,
    /// The challenge of the server's last 401, where discovery of its sign-in starts.
    challenge: Option<BearerChallenge>,
    /// The origins a sign-in fetches from, once discovery learned them all (see `sign_in`).
    sign_in_origins: Vec<String>,
}

impl<H: Http + 'static, T: Timer + 'static> Server<H, T> {
    /// A server for `spec`, or why it cannot be one.
    pub(super) fn new(inner: &Rc<Inner<H, T>>, spec: ServerSpec) -> Result<Rc<Self>, String> {
        let slug = ServerSlug::new(&spec.id).map_err(|err| err.to_string())?;
        if !(spec.url.starts_with("https://") || spec.url.starts_with("http://")) {
            return Err(format!("{} is not an http(s) URL", spec.url));
        }
        let mut config = ServerConfig::new(slug, spec.url.clone());
        // Every configured value may be a credential (`Authorization`, `X-API-Key`, …).
        config.headers = spec
            .headers
            .iter()
            .map(|(name, value)| (name.clone(), HeaderValue::Secret(value.clone())))
            .collect();
        config.budgets = inner.options.budgets;
        config.timeout_ms = spec.timeout_ms;
        let (stop, stopped) = AbortSignal::new();
        let credentials = spec.credentials();
        let oauth_client = RefCell::new(credentials.as_ref().map(|c| c.client().clone()));
        let credentials = RefCell::new(credentials);
        let step_up = RefCell::new(None);
        Ok(Rc::new_cyclic(|weak: &Weak<Server<H, T>>| {
            let handler: Rc<dyn ServerHandler> =
                Rc::new(Events { inner: Rc::downgrade(inner), server: weak.clone() });
            let client =
                McpClient::new(Rc::clone(&inner.http), Rc::clone(&inner.timer), config, handler);
            let state = RefCell::new(State::default());
            Server { spec, client, state, credentials, oauth_client, step_up, stop, stopped }
        }))
    }

    /// Where it stands.
    pub(super) fn status(&self) -> McpStatus {
        self.state.borrow().status.clone()
    }

    /// The last good catalog.
    pub(super) fn catalog(&self) -> Option<ToolCatalog> {
        self.state.borrow().catalog.clone()
    }

    /// Sets the status and reports a change; a closed server reports nothing more.
    pub(super) fn set_status(&self, inner: &Inner<H, T>, mut status: McpStatus) {
        if self.stopped.is_aborted() {
            return;
        }
        {
            let mut state = self.state.borrow_mut();
            // A sign-in asked for names the origins it needs once they are known.
            if let McpStatus::NeedsAuthorization { origins, .. } = &mut status
                && origins.is_empty()
            {
                origins.clone_from(&state.sign_in_origins);
            }
            if state.status == status {
                return;
            }
            state.status = status.clone();
        }
        inner.emit(Event::Status { server: self.spec.id.clone(), status });
    }

    /// Ends everything running for this server.
    pub(super) fn stop(&self) {
        self.stop.abort();
    }

    /// Initializes (unless a session is open) and lists the tools; one attempt at a time, the
    /// others wait for it and share its outcome. For the [`Interaction::User`], an OAuth server
    /// that needs it is signed in to first (see `sign_in`).
    pub(super) async fn connect(
        self: &Rc<Self>,
        inner: &Rc<Inner<H, T>>,
        interaction: Interaction,
    ) -> McpStatus {
        loop {
            let waiting = {
                let mut state = self.state.borrow_mut();
                match &mut state.connecting {
                    Some(waiters) => {
                        let (sender, receiver) = oneshot::channel();
                        waiters.push(sender);
                        Some(receiver)
                    }
                    None => {
                        state.connecting = Some(Vec::new());
                        None
                    }
                }
            };
            let Some(receiver) = waiting else { break };
            receiver.await;
            // A background attempt that ended needing a sign-in does not answer the user's
            // press of Sign in: that one runs on its own.
            let needs_user = matches!(self.status(), McpStatus::NeedsAuthorization { .. });
            if interaction == Interaction::Background || !needs_user || self.stopped.is_aborted() {
                return self.status();
            }
        }
        let _flight = Flight(&self.state);
        self.attempt(inner, interaction).await;
        self.name_sign_in_origins(inner).await;
        self.status()
    }

    /// One connect of [`Server::connect`], under way alone; where it left the server.
    async fn attempt(
        self: &Rc<Self>,
        inner: &Rc<Inner<H, T>>,
        interaction: Interaction,
    ) -> McpStatus {
        self.set_status(inner, McpStatus::Connecting);
        let user = interaction == Interaction::User && self.spec.auth == McpAuth::Oauth;
        let step_up = if user { self.step_up.borrow_mut().take() } else { None };
        if let Some(challenge) = step_up
            && let Err(status) = self.sign_in(inner, Some(&challenge)).await
        {
            self.set_status(inner, status);
            return self.status();
        }
        if let Err(status) = self.authorize(inner).await {
            let spent = matches!(status, McpStatus::NeedsAuthorization { .. });
            if !(user && spent) {
                self.set_status(inner, status);
                return self.status();
            }
            // The stored sign-in cannot be used or refreshed: start over in the browser.
            self.forget_credentials();
        }
        let list = || async {
            self.client.connect(&self.stopped).await?;
            self.client.list_tools(&self.stopped).await
        };
        let listed = match list().await {
            // An expired or revoked token: one refresh, one retry.
            Err(McpError::Unauthorized { status: 401, .. }) if self.refresh(inner).await => {
                list().await
            }
            listed => listed,
        };
        let listed = match listed {
            // No sign-in, or one the server no longer takes: the user signs in now, from the
            // server's challenge.
            Err(McpError::Unauthorized { status: 401, challenge }) if user => {
                self.forget_credentials();
                match self.sign_in(inner, challenge.as_ref()).await {
                    Ok(()) => list().await,
                    Err(status) => {
                        self.set_status(inner, status);
                        return self.status();
                    }
                }
            }
            listed => listed,
        };
        match listed {
            Ok(catalog) => {
                self.listed(inner, catalog);
                self.start_listening(inner);
            }
            Err(err) => {
                if let McpError::Unauthorized { status: 401, challenge } = &err {
                    self.state.borrow_mut().challenge.clone_from(challenge);
                }
                self.set_status(inner, status_after(&err, &self.spec));
            }
        }
        self.status()
    }

    /// Keeps a 403 `insufficient_scope` challenge for the next sign-in.
    pub(super) fn remember_step_up(&self, challenge: Option<&BearerChallenge>) {
        if let Some(challenge) = challenge
            && challenge.error.as_deref() == Some("insufficient_scope")
            && self.spec.auth == McpAuth::Oauth
        {
            *self.step_up.borrow_mut() = Some(challenge.clone());
        }
    }

    /// Drops the sign-in in use (its client stays, for the next sign-in).
    fn forget_credentials(&self) {
        self.client.set_authorization(None);
        *self.credentials.borrow_mut() = None;
    }

    /// Takes the sign-in the engine holds now, unless it is the one already in use (the
    /// engine echoes back what the module refreshed).
    pub(super) fn replace_credentials(&self, credentials: Option<Credentials>) {
        if *self.credentials.borrow() == credentials {
            return;
        }
        self.client.set_authorization(None);
        if let Some(credentials) = &credentials {
            *self.oauth_client.borrow_mut() = Some(credentials.client().clone());
        }
        *self.credentials.borrow_mut() = credentials;
    }

    /// Puts the sign-in's token on the client, refreshed first when it expired; the status to
    /// show when that fails. Servers without a sign-in go as configured.
    async fn authorize(&self, inner: &Inner<H, T>) -> Result<(), McpStatus> {
        let clock = TimerClock(&*inner.timer);
        let Some(mut credentials) = self.credentials.borrow().clone() else { return Ok(()) };
        if credentials.is_expired(&clock) {
            if !self.refresh(inner).await {
                return Err(self.status());
            }
            let Some(refreshed) = self.credentials.borrow().clone() else { return Ok(()) };
            credentials = refreshed;
        }
        match credentials.authorization(&self.spec.url, &clock) {
            Ok(header) => {
                self.client.set_authorization(Some(header));
                Ok(())
            }
            Err(err) => Err(McpStatus::NeedsAuthorization {
                reason: format!("the sign-in cannot be used ({err}); {SIGN_IN_FROM_SETTINGS}"),
                origins: Vec::new(),
            }),
        }
    }

    /// Refreshes the sign-in and puts the new token on the client; whether that worked. The
    /// engine gets the new credentials (a rotated refresh token is spent once used); a failure
    /// shows in the status.
    pub(super) async fn refresh(&self, inner: &Inner<H, T>) -> bool {
        let clock = TimerClock(&*inner.timer);
        let Some(credentials) = self.credentials.borrow().clone() else { return false };
        if !credentials.can_refresh() {
            let reason = format!("the sign-in expired; {SIGN_IN_FROM_SETTINGS}");
            self.set_status(inner, McpStatus::NeedsAuthorization { reason, origins: Vec::new() });
            return false;
        }
        let budgets = &inner.options.budgets;
        let refreshed =
            match credentials.refresh(&*inner.http, budgets, &clock, &self.stopped).await {
                Ok(refreshed) => refreshed,
                Err(err) => {
                    let status = if err.needs_user() {
                        McpStatus::NeedsAuthorization {
                            reason: format!(
                                "the sign-in could not be renewed ({err}); {SIGN_IN_FROM_SETTINGS}"
                            ),
                            origins: Vec::new(),
                        }
                    } else {
                        McpStatus::Error { reason: format!("could not refresh the sign-in: {err}") }
                    };
                    self.set_status(inner, status);
                    return false;
                }
            };
        let Ok(header) = refreshed.authorization(&self.spec.url, &clock) else { return false };
        self.client.set_authorization(Some(header));
        *self.credentials.borrow_mut() = Some(refreshed.clone());
        if !self.stopped.is_aborted() {
            inner.emit(Event::Credentials { server: self.spec.id.clone(), credentials: refreshed });
        }
        true
    }

    /// Keeps a successful listing and reports it.
    fn listed(&self, inner: &Inner<H, T>, catalog: ToolCatalog) {
        if self.stopped.is_aborted() {
            return;
        }
        let tools = u32::try_from(catalog.tools.len()).unwrap_or(u32::MAX);
        let event = Event::catalog(&self.spec.id, &catalog);
        self.state.borrow_mut().catalog = Some(catalog);
        inner.emit(event);
        self.set_status(inner, McpStatus::Ready { tools });
    }

    /// Lists the tools again after `tools/list_changed`, a little later so a burst lists once.
    fn schedule_refresh(self: &Rc<Self>, inner: &Rc<Inner<H, T>>) {
        {
            let mut state = self.state.borrow_mut();
            if state.refresh_pending || self.stopped.is_aborted() {
                return;
            }
            state.refresh_pending = true;
        }
        let (server, task_inner) = (Rc::clone(self), Rc::clone(inner));
        inner.spawner.spawn(Box::pin(async move {
            let delay =
                task_inner.timer.sleep(Wait::Backoff { ms: task_inner.options.refresh_delay_ms });
            if let Either::Right(()) = race(delay, server.stopped.aborted()).await {
                return;
            }
            server.state.borrow_mut().refresh_pending = false;
            match server.client.list_tools(&server.stopped).await {
                Ok(catalog) => server.listed(&task_inner, catalog),
                // Closed meanwhile: nothing to report.
                Err(McpError::Aborted) => {}
                // The last good catalog stays; the failure shows in the status only.
                Err(err) => server.set_status(&task_inner, status_after(&err, &server.spec)),
            }
        }));
    }

    /// Starts the background stream unless it runs.
    fn start_listening(self: &Rc<Self>, inner: &Rc<Inner<H, T>>) {
        {
            let mut state = self.state.borrow_mut();
            if state.listening || self.stopped.is_aborted() {
                return;
            }
            state.listening = true;
        }
        let (server, task_inner) = (Rc::clone(self), Rc::clone(inner));
        inner.spawner.spawn(Box::pin(async move {
            server.listen_loop(&task_inner).await;
            server.state.borrow_mut().listening = false;
        }));
    }

    /// Listens on the standalone stream, reopening it with doubling backoff; gives up when the
    /// server offers none, refuses us, fails too often in a row, or is closed.
    async fn listen_loop(&self, inner: &Inner<H, T>) {
        let options = inner.options;
        let mut failures = 0;
        let mut delay = options.listen_backoff_min_ms;
        loop {
            let opened_at = inner.timer.now_ms();
            let outcome = self.client.listen(&self.stopped).await;
            if self.stopped.is_aborted() {
                return;
            }
            match outcome {
                Ok(Listened::NotOffered) | Err(McpError::Aborted) => return,
                Err(err @ McpError::Unauthorized { .. }) => {
                    self.set_status(inner, status_after(&err, &self.spec));
                    return;
                }
                Ok(Listened::Ended) | Err(_) => {
                    let open_ms = inner.timer.now_ms().saturating_sub(opened_at);
                    if open_ms >= options.listen_healthy_ms {
                        failures = 0;
                        delay = options.listen_backoff_min_ms;
                    } else {
                        failures += 1;
                    }
                }
            }
            if failures >= options.listen_max_failures {
                return;
            }
            let pause = inner.timer.sleep(Wait::Backoff { ms: delay });
            if let Either::Right(()) = race(pause, self.stopped.aborted()).await {
                return;
            }
            delay = delay.saturating_mul(2).min(options.listen_backoff_max_ms);
        }
    }
}

/// The host's timer as the clock OAuth expiry is judged by.
struct TimerClock<'t, T>(&'t T);

impl<T: Timer> Clock for TimerClock<'_, T> {
    fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }
}

/// Marks a connect under way until dropped, then wakes those waiting for it.
struct Flight<'s>(&'s RefCell<State>);

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        // Dropping the senders completes their receivers.
        let waiters = self.0.borrow_mut().connecting.take();
        drop(waiters);
    }
}

/// The client's [`ServerHandler`]: weak links, so a closed server's client does not keep the
/// manager alive.
struct Events<H, T> {
    inner: Weak<Inner<H, T>>,
    server: Weak<Server<H, T>>,
}

impl<H: Http + 'static, T: Timer + 'static> ServerHandler for Events<H, T> {
    fn notification(&self, notification: ServerNotification) {
        if notification != ServerNotification::ToolsListChanged {
            return;
        }
        if let (Some(inner), Some(server)) = (self.inner.upgrade(), self.server.upgrade()) {
            server.schedule_refresh(&inner);
        }
    }

    fn elicit(
        &self,
        request: ElicitRequest,
        resume: Option<ResumePoint>,
    ) -> LocalFuture<'_, ElicitResult> {
        let cancelled = ElicitResult { action: ElicitAction::Cancel, content: None };
        let (Some(inner), Some(server)) = (self.inner.upgrade(), self.server.upgrade()) else {
            return Box::pin(async move { cancelled });
        };
        let n = inner.next_elicitation.get() + 1;
        inner.next_elicitation.set(n);
        let request_id = format!("{}-{n}", server.spec.id);
        let (sender, receiver) = oneshot::channel();
        inner.elicitations.borrow_mut().insert(request_id.clone(), sender);
        let pending = Pending { inner: Rc::downgrade(&inner), request_id: request_id.clone() };
        inner.emit(Event::Elicit {
            request_id,
            server: server.spec.id.clone(),
            message: request.message,
            schema: request.requested_schema,
            resume: resume.as_ref().map(ResumePoint::to_text),
        });
        Box::pin(async move {
            let _pending = pending;
            receiver.await.unwrap_or(cancelled)
        })
    }
}

/// Forgets an elicitation when its request ends, answered or not (the call was cancelled,
/// timed out, or the server closed).
struct Pending<H, T> {
    inner: Weak<Inner<H, T>>,
    request_id: String,
}

impl<H, T> Drop for Pending<H, T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.elicitations.borrow_mut().remove(&self.request_id);
        }
    }
}
