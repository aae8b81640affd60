//! Routes the engine client's effects to the contexts they concern: status to the engine
//! context, events to the thread list and the open thread (and the few follow-ups some events
//! need), answers to the forms and the notice bar.

use leptos::prelude::*;
use panelot_protocol::AgentEvent;
use panelot_protocol::Op;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::OpenKind;
use panelot_protocol::engine::SettingsGetParams;
use panelot_protocol::engine::ThreadListParams;

use super::draft::Draft;
use super::engine::Engine;
use super::mcp::Mcp;
use super::notices::Notices;
use super::open_thread::OpenThread;
use super::page::Page;
use super::page::PageKind;
use super::settings::Settings;
use super::threads::Threads;
use super::turns::Turns;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::state::artifacts::Shown;
use crate::state::client::ClientEffect;
use crate::state::client::EngineLink;

/// Holds every context, to hand each effect to the ones it concerns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Router {
    pub(crate) page: Page,
    pub(crate) engine: Engine,
    pub(crate) threads: Threads,
    pub(crate) open: OpenThread,
    pub(crate) draft: Draft,
    pub(crate) settings: Settings,
    pub(crate) notices: Notices,
    pub(crate) turns: Turns,
    pub(crate) mcp: Mcp,
}

impl Router {
    /// Handles a client effect that concerns the app.
    pub(crate) fn handle(self, effect: ClientEffect) {
        match effect {
            ClientEffect::Status(link) => self.status(link),
            ClientEffect::Deliver(frame) => {
                self.threads.list.update(|list| {
                    list.apply(&frame.event);
                });
                self.open.update(|view| {
                    view.apply(&frame);
                });
                self.after_event(&frame.event);
                self.open.refresh_if_wanted();
            }
            ClientEffect::Acked { submission_id, .. } => {
                self.settings.answer_forms(&submission_id, None);
                self.draft.sent.update_value(|sent| sent.accepted(&submission_id));
                self.open.update(|view| view.confirm(&submission_id));
            }
            ClientEffect::Rejected { submission_id, code, message } => {
                if self.mcp.refused(&submission_id, &message) {
                    // The composer shows the reason next to what was asked for.
                    return;
                }
                if self.settings.answer_forms(&submission_id, Some(&message)) {
                    // The form shows the reason next to what was typed.
                    return;
                }
                let put = self.draft.sent.try_update_value(|s| s.put_refused(&submission_id, code));
                if let Some(refused) = put.flatten() {
                    // A file of a message was not stored: said next to the box, in words.
                    let line = refused.line(self.page.lang.get_untracked(), &message);
                    self.draft.file_refusals.update(|lines| lines.push(line));
                    return;
                }
                let mut restored = None;
                self.open.update(|view| restored = view.roll_back(&submission_id));
                let given = self.draft.sent.try_update_value(|s| s.refused(&submission_id));
                let mut lost_files = false;
                match given.flatten() {
                    Some(back) => {
                        lost_files = back.lost_files;
                        self.draft.give_back(back);
                    }
                    None => {
                        if let Some(text) = restored {
                            self.draft.restore(text);
                        }
                    }
                }
                self.open.refresh_if_wanted();
                if lost_files && code == ErrorCode::AttachmentNotFound {
                    // Refused for the file the box already says was not attached.
                    return;
                }
                // The engine refuses in English; known refusals are shown in the page's language.
                let message = i18n::engine_text(self.page.lang.get_untracked(), &message);
                self.notices.show(self.page.format(Msg::Rejected, &[("message", &message)]));
            }
            ClientEffect::Malformed(detail) => {
                host::log_error(&detail);
                self.notices.show(self.page.format(Msg::MalformedEvent, &[("detail", &detail)]));
            }
            // The port carries these out itself.
            ClientEffect::Send(_)
            | ClientEffect::SaveOutbox(_)
            | ClientEffect::ReconnectAfter(_) => {}
        }
    }

    fn status(self, link: EngineLink) {
        let ready = link == EngineLink::Ready;
        self.engine.link.set(link);
        if !ready {
            return;
        }
        self.engine.sessions.update(|n| *n += 1);
        // Settings are not replayed after a reconnect: ask again.
        let _ =
            self.engine.send(|submission_id| Op::SettingsGet(SettingsGetParams { submission_id }));
        if self.page.kind != PageKind::Options {
            // Nor are lists.
            let _ = self.engine.send(|submission_id| {
                Op::ThreadList(ThreadListParams { submission_id, include_archived: false })
            });
        }
    }

    /// Follow-ups that need the list and the view updated first. Only a few event types have
    /// any; the rest are fully handled by the view models.
    fn after_event(self, event: &AgentEvent) {
        if let AgentEvent::ThreadCreated(created) = event
            && let Some(sent) = &created.submission_id
        {
            self.turns.thread_created(&created.thread.id, sent);
        }
        if let AgentEvent::SettingsState(state) = event {
            self.settings.view.set(Some(state.settings.clone()));
            // Every page follows the stored language, also when another page changed it.
            self.page.follow_language(state.settings.language);
        }
        if let AgentEvent::McpListed(listed) = event {
            self.mcp.listed(listed);
        }
        if let AgentEvent::McpFetched(fetched) = event
            && let Some(block) = self.mcp.fetched(fetched)
        {
            self.draft.attached.update(|a| a.push(block));
            self.turns.release_held();
        }
        if let AgentEvent::ConnectionVerified(verified) = event {
            self.settings
                .record_check(verified.connection_id.clone(), Some(verified.report.clone()));
        }
        if let AgentEvent::ThreadListed(_) = event {
            // The side panel opens on the most recent thread.
            let none_open = self.open.view.with_untracked(Option::is_none);
            let drafting = !self.draft.text.with_untracked(String::is_empty);
            if none_open && !drafting && self.page.kind == PageKind::SidePanel {
                let recent = self
                    .threads
                    .list
                    .with_untracked(|l| l.most_recent().map(|t| t.meta.id.clone()));
                if let Some(thread_id) = recent {
                    self.open.open(thread_id);
                }
            }
        }
        if let AgentEvent::ViewOpen(open) = event {
            // The engine sends these only while the setting is on; a page that knows it is off
            // (settings changed meanwhile) does not open them.
            let off = self.settings.view.with_untracked(|view| {
                view.as_ref().is_some_and(|settings| !settings.agent_open_tools)
            });
            if !off {
                match open.kind {
                    OpenKind::Url => host::open_beside(open.target.clone()),
                    OpenKind::Artifact => {
                        let shown = Shown { name: open.target.clone(), item_id: None };
                        self.open.show_artifact(self.page.kind, shown);
                    }
                }
            }
        }
        if let AgentEvent::ThreadDeleted(deleted) = event
            && self.open.thread_id().as_ref() == Some(&deleted.thread_id)
        {
            self.open.view.set(None);
        }
    }
}
