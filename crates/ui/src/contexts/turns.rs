//! The commands that start and steer turns: send (a draft's first message creates its thread),
//! steer, queue, interrupt, fork (edit and resend, regenerate, retry), and starting a new draft.
//! Sent messages show at once as optimistic entries of the open thread. A new turn is only sent
//! when it has a model to run on (`state::readiness`): otherwise the text stays and a notice says
//! to connect a model, so a first message on a fresh profile leaves no empty thread behind.
//!
//! Every message carries its browser context: the tab it is about, as `chrome.tabs` reports it
//! at the moment of sending (never remembered from earlier: the user may have switched tabs), so
//! the engine judges and acts on the tab the user was looking at.

use leptos::prelude::*;
use leptos::task::spawn_local;
use panelot_protocol::AttachmentId;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::BrowserContext;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ThreadCreateParams;
use panelot_protocol::engine::TurnEnqueueParams;
use panelot_protocol::engine::TurnForkParams;
use panelot_protocol::engine::TurnInterruptParams;
use panelot_protocol::engine::TurnSteerParams;
use panelot_protocol::engine::TurnSubmitParams;
use panelot_protocol::engine::UserInput;

use super::draft::Draft;
use super::engine::Engine;
use super::mcp::Mcp;
use super::notices::Notices;
use super::open_thread::OpenThread;
use super::page::Page;
use super::page::PageKind;
use super::settings::Settings;
use crate::host;
use crate::i18n::Msg;
use crate::state::files;
use crate::state::files::FileChip;
use crate::state::files::PendingFile;
use crate::state::keys::ComposerAction;
use crate::state::keys::sendable;
use crate::state::readiness::Readiness;
use crate::state::readiness::readiness;
use crate::state::sent;
use crate::state::sent::Sending;
use crate::state::sent::SentFile;
use crate::state::tab_choice::TabInfo;
use crate::state::tab_choice::Viewer;
use crate::state::tab_choice::browser_context;
use crate::state::thread_view::EntryKey;

/// The turn commands of the page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turns {
    /// The page sending, which decides the tab a message is about.
    page: Page,
    engine: Engine,
    open: OpenThread,
    draft: Draft,
    settings: Settings,
    notices: Notices,
    mcp: Mcp,
}

impl Turns {
    /// Carries out a composer action with the draft's text.
    pub(crate) fn act(self, action: ComposerAction) {
        let thread_id = self.open.thread_id();
        match action {
            ComposerAction::Default => return,
            ComposerAction::Interrupt => {
                if let Some(thread_id) = thread_id {
                    let _ = self.engine.send(|submission_id| {
                        Op::TurnInterrupt(TurnInterruptParams { submission_id, thread_id })
                    });
                }
                return;
            }
            ComposerAction::Submit | ComposerAction::Steer | ComposerAction::Enqueue => {}
        }
        let text = self.draft.text.get_untracked();
        if !sendable(&text) {
            return;
        }
        // Steering adds to a turn that runs, so it has a model; a new turn may have none.
        if action != ComposerAction::Steer && !self.can_run() {
            return;
        }
        // A resource or prompt chosen for this message is still on its way: the send waits for
        // it (its chip says so) and goes when it arrives ([`Turns::release_held`]).
        if self.mcp.fetches.try_update(|f| f.hold(action)).unwrap_or(false) {
            return;
        }
        self.draft.text.set(String::new());
        let Some(thread_id) = thread_id else {
            self.create_thread_for(text);
            return;
        };
        match (action, self.open.active_turn()) {
            (ComposerAction::Steer, Some(expected_turn_id)) => {
                self.steer(thread_id, expected_turn_id, text)
            }
            (ComposerAction::Enqueue, _) => self.enqueue(thread_id, text),
            _ => self.submit(thread_id, text),
        }
    }

    /// Sends the message held for fetches once the last one arrived (its chip is attached).
    pub(crate) fn release_held(self) {
        if let Some(action) = self.mcp.fetches.try_update(|f| f.release()).flatten() {
            self.act(action);
        }
    }

    /// Whether a new turn would have a model to run on; if not, says what to do (the text stays
    /// in the composer, and no thread is created for it).
    fn can_run(self) -> bool {
        let preset =
            match self.open.view.with_untracked(|v| {
                v.as_ref().map(|v| v.meta.as_ref().and_then(|m| m.preset.clone()))
            }) {
                Some(thread_preset) => thread_preset,
                None => self.draft.preset.get_untracked(),
            };
        let turn_model = self.draft.turn_model.get_untracked();
        let ready = self.settings.view.with_untracked(|settings| {
            readiness(settings.as_ref(), turn_model.as_ref(), preset.as_ref())
        });
        match ready {
            Readiness::Unknown | Readiness::Ready(..) => true,
            Readiness::NoModel => {
                self.notices.show_with_settings_link(self.page.t(Msg::NoModelNotice).to_owned());
                false
            }
        }
    }

    /// Sends `text` as a new turn of `thread_id`, shown at once as an optimistic message.
    pub(crate) fn submit(self, thread_id: ThreadId, text: String) {
        let (attached, files) = (self.draft.take_attached(), self.draft.take_files());
        let overrides = self.draft.overrides();
        spawn_local(async move {
            let sent = self
                .send_message(thread_id.clone(), &text, attached, files, |submission_id, input| {
                    Op::TurnSubmit(TurnSubmitParams { submission_id, thread_id, input, overrides })
                })
                .await;
            if let Some((submission_id, chips)) = sent {
                self.open.update(|view| {
                    view.add_optimistic(submission_id.clone(), &text, false);
                    view.attach_files(&submission_id, chips);
                });
            }
        });
    }

    /// Sends the message `text` with `attached` context and `files` as the command `op` makes
    /// of its input. Each file not stored in the thread yet is stored first (its
    /// `attachment.put` goes before the message, and the engine handles them in order); what the
    /// message carried is kept until the engine answers, so a refusal gives it all back
    /// ([`Sent`](crate::state::sent::Sent)). Returns the message's submission id and its files'
    /// chips.
    async fn send_message(
        self,
        thread_id: ThreadId,
        text: &str,
        attached: Vec<ContextBlock>,
        files: Vec<PendingFile>,
        op: impl FnOnce(SubmissionId, UserInput) -> Op,
    ) -> Option<(SubmissionId, Vec<FileChip>)> {
        let mut input = self.input(text, attached.clone()).await;
        let mut chips = Vec::new();
        let mut sent_files = Vec::new();
        for mut file in files {
            let fresh_id = || AttachmentId::new(host::new_attachment_id()).ok();
            let put = match sent::sending(&mut file, &thread_id, fresh_id) {
                Sending::Named => None,
                Sending::Put => {
                    let (thread_id, stored) = (thread_id.clone(), file.clone());
                    let put = self
                        .engine
                        .send(|submission_id| files::put_op(submission_id, thread_id, stored));
                    match put {
                        Ok(put) => Some(put),
                        Err(_) => continue,
                    }
                }
            };
            input.attachment_ids.push(file.id.clone());
            chips.push(files::chip_of(&file));
            sent_files.push(SentFile::new(file, put));
        }
        let submission_id = self.engine.send(|submission_id| op(submission_id, input)).ok()?;
        let (sent_id, text) = (submission_id.clone(), text.to_owned());
        self.draft.sent.update_value(|sent| {
            sent.record(sent_id, thread_id, text, attached, sent_files);
        });
        Some((submission_id, chips))
    }

    /// Adds `text` to the running turn `expected_turn_id`.
    fn steer(self, thread_id: ThreadId, expected_turn_id: TurnId, text: String) {
        let (attached, files) = (self.draft.take_attached(), self.draft.take_files());
        spawn_local(async move {
            let sent = self
                .send_message(thread_id.clone(), &text, attached, files, |submission_id, input| {
                    Op::TurnSteer(TurnSteerParams {
                        submission_id,
                        thread_id,
                        expected_turn_id,
                        input,
                    })
                })
                .await;
            if let Some((submission_id, chips)) = sent {
                self.open.update(|view| {
                    view.add_optimistic(submission_id.clone(), &text, true);
                    view.attach_files(&submission_id, chips);
                });
            }
        });
    }

    /// Queues `text` as a later turn. Queued messages show in the queue dock once
    /// `queue.updated` arrives, not in the stream.
    fn enqueue(self, thread_id: ThreadId, text: String) {
        let (attached, files) = (self.draft.take_attached(), self.draft.take_files());
        let overrides = self.draft.overrides();
        spawn_local(async move {
            self.send_message(thread_id.clone(), &text, attached, files, |submission_id, input| {
                Op::TurnEnqueue(TurnEnqueueParams { submission_id, thread_id, input, overrides })
            })
            .await;
        });
    }

    /// Sends the first message of a draft: the thread is created first (a draft is not stored
    /// until its first message), and the message follows once `thread.created` arrives
    /// ([`Turns::thread_created`]).
    fn create_thread_for(self, text: String) {
        let preset = self.draft.preset.get_untracked();
        let sent = self.engine.send(|submission_id| {
            Op::ThreadCreate(ThreadCreateParams { submission_id, preset, folder_id: None })
        });
        if let Ok(submission_id) = sent {
            self.draft.pending_create.set(Some((submission_id, text)));
        }
    }

    /// The engine created `thread_id` for the command `submission_id`: if that was the draft's,
    /// the thread opens and the draft's first message goes to it.
    pub(crate) fn thread_created(self, thread_id: &ThreadId, submission_id: &SubmissionId) {
        let pending = self.draft.pending_create.get_untracked();
        if let Some((sent, text)) = pending
            && &sent == submission_id
        {
            self.draft.pending_create.set(None);
            self.open.open(thread_id.clone());
            self.submit(thread_id.clone(), text);
        }
    }

    /// Sends `text` as a new sibling of the user message `sibling_of` (edit and resend,
    /// regenerate, retry), naming the files `files` of that message again (stored with the
    /// thread already, so the model is told of them and `upload_file` may use them on the new
    /// branch); the view shows the new branch at once.
    pub(crate) fn fork(self, sibling_of: NodeId, text: String, files: Vec<FileChip>) {
        let Some(thread_id) = self.open.thread_id() else { return };
        let overrides = self.draft.overrides();
        spawn_local(async move {
            // The composer's attachments stay for the composer's next message.
            let mut input = self.input(&text, Vec::new()).await;
            input.attachment_ids =
                files.iter().filter_map(|file| AttachmentId::new(file.id.clone()).ok()).collect();
            let sibling_of_node_id = sibling_of.clone();
            let sent = self.engine.send(|submission_id| {
                Op::TurnFork(TurnForkParams {
                    submission_id,
                    thread_id,
                    sibling_of_node_id,
                    input,
                    overrides,
                })
            });
            if let Ok(submission_id) = sent {
                self.open.update(|view| {
                    view.fork(&sibling_of, submission_id.clone(), &text);
                    view.attach_files(&submission_id, files);
                });
            }
        });
    }

    /// Regenerates (or retries) the answer at `key` by sending its turn's message again, with
    /// its files, as a sibling.
    pub(crate) fn resend(self, key: &EntryKey) {
        let source =
            self.open.view.with_untracked(|v| v.as_ref().and_then(|v| v.resend_source(key)));
        if let Some(resend) = source {
            self.fork(resend.node_id, resend.text, resend.files);
        }
    }

    /// Closes the open thread: the composer then starts a draft, on the open thread's preset.
    pub(crate) fn new_draft(self) {
        let preset = self.open.view.with_untracked(|v| v.as_ref()?.meta.as_ref()?.preset.clone());
        self.draft.preset.set(preset);
        self.open.view.set(None);
        self.draft.text.set(String::new());
    }

    /// The message to send for `text` with `attached` context, and the browser context
    /// captured now.
    async fn input(self, text: &str, attached: Vec<ContextBlock>) -> UserInput {
        let browser_context = capture_browser_context(self.page.kind, &attached).await;
        UserInput {
            text: text.to_owned(),
            attached_context: attached,
            browser_context,
            ..UserInput::default()
        }
    }
}

/// The browser context of a message sent now from the page `page`; `None` when Chrome could not
/// say which tabs there are (the message then goes without one rather than not at all).
async fn capture_browser_context(
    page: PageKind,
    attached: &[ContextBlock],
) -> Option<BrowserContext> {
    match tabs_in_view(page).await {
        Ok((viewer, tabs)) => {
            let now_ms = js_sys::Date::now() as u64;
            Some(browser_context(viewer, &tabs, now_ms, attached))
        }
        Err(err) => {
            host::log_error(&format!("cannot tell which tab the message is about: {err}"));
            None
        }
    }
}

/// Where the page `page` is, and the tabs a message sent from it now may be about, as Chrome
/// reports them ([`default_tab`](crate::state::tab_choice::default_tab) picks the one).
pub(crate) async fn tabs_in_view(page: PageKind) -> Result<(Viewer, Vec<TabInfo>), String> {
    let (viewer, query) = match page {
        PageKind::SidePanel => {
            let window_id = host::current_window_id().await?;
            let query = serde_json::json!({"active": true, "windowId": window_id});
            (Viewer::SidePanel { window_id }, query)
        }
        PageKind::Chat | PageKind::Options => {
            let last_focused_window = host::last_focused_normal_window().await;
            (Viewer::Tab { last_focused_window }, serde_json::json!({"windowType": "normal"}))
        }
    };
    let tabs = host::query_tabs(&query).await?;
    Ok((viewer, tabs.iter().filter_map(TabInfo::from_json).collect()))
}

/// Provides the [`Turns`] context.
pub(crate) fn provide_turns(
    page: Page,
    engine: Engine,
    open: OpenThread,
    draft: Draft,
    settings: Settings,
    notices: Notices,
    mcp: Mcp,
) -> Turns {
    let turns = Turns { page, engine, open, draft, settings, notices, mcp };
    provide_context(turns);
    turns
}

/// The [`Turns`] context.
pub(crate) fn use_turns() -> Turns {
    expect_context()
}
