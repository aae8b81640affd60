//! The options page's MCP servers: a card per stored server (switch, status, Connect/Retry,
//! Edit, Delete asking first, its tools with a switch each and its last calls), the form that
//! adds or edits one, and the import of a pasted `mcpServers` snippet. Every change is an Op
//! (`mcp.save`, `mcp.delete`, `mcp.connect`); the engine answers with the whole settings, which
//! draw the cards again, and sends them again whenever a server's status or tools change.
//!
//! The markup is HTML text from `state::mcp_markup` (see `connections_section` for why); the
//! section handles the events of everything in it, clicks by `data-act`, fields by `name`.
//! The form's fields and the import's text box are drawn again only when their shape changes,
//! never while typing.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::McpConnectParams;
use panelot_protocol::engine::McpDeleteParams;
use panelot_protocol::engine::McpSaveParams;
use panelot_protocol::engine::McpServerInput;
use panelot_protocol::engine::McpServerView;
use wasm_bindgen::JsCast;

use super::events::closest_target;
use super::events::target_element;
use super::memory_section::utc_offset_min;
use crate::contexts::Engine;
use crate::contexts::Settings;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::host;
use crate::state::connection_markup::problems_html;
use crate::state::mcp_form::McpEditor;
use crate::state::mcp_form::McpForm;
use crate::state::mcp_form::McpImport;
use crate::state::mcp_form::access_origins;
use crate::state::mcp_form::auth_from_value;
use crate::state::mcp_form::connect_from_value;
use crate::state::mcp_form::with_enabled;
use crate::state::mcp_form::with_tool;
use crate::state::mcp_markup::ServerCard;
use crate::state::mcp_markup::form_actions_html;
use crate::state::mcp_markup::form_html;
use crate::state::mcp_markup::head_html;
use crate::state::mcp_markup::import_box_html;
use crate::state::mcp_markup::import_preview_html;
use crate::state::mcp_markup::server_html;
use crate::state::urls::origin_of;

/// Tool servers (MCP): the stored ones, the form and the import.
#[component]
pub(crate) fn McpSection() -> impl IntoView {
    let page = use_page();
    let settings = use_settings();
    let editor = settings.mcp_editor;
    let import = settings.mcp_import;
    let ui = Section {
        engine: use_engine(),
        settings,
        confirming: RwSignal::new(None),
        expanded: RwSignal::new(Vec::new()),
        redraw: RwSignal::new(0),
    };
    let loaded = move || settings.view.with(Option::is_some);
    let servers = Memo::new(move |_| {
        settings.view.with(|s| s.as_ref().map(|s| s.mcp_servers.clone()).unwrap_or_default())
    });
    // What the form is open for: `None` closed, `Some(None)` a new server, else the one edited.
    let target = Memo::new(move |_| editor.with(|e| e.as_ref().map(|e| e.editing.clone())));
    let import_open = Memo::new(move |_| import.with(|i| i.open));
    // A save the engine stored closes the form.
    Effect::new(move |_| {
        if servers.with(|list| editor.with(|e| e.as_ref().is_some_and(|e| e.saved(list)))) {
            editor.set(None);
        }
    });
    let head = move || {
        let idle = target.get().is_none() && !import_open.get();
        head_html(page.lang.get(), idle, loaded() && servers.with(Vec::is_empty))
    };
    let fields = move || {
        ui.redraw.track();
        let lang = page.lang.get();
        // What was typed is read untracked: typing must not draw the fields again.
        editor.with_untracked(|e| e.as_ref().map(|e| form_html(lang, &e.form)))
    };
    let problems = move || {
        let lang = page.lang.get();
        editor.with(|e| problems_html(&e.as_ref().map(|e| e.notes(lang)).unwrap_or_default()))
    };
    let actions = move || {
        let waiting = editor.with(|e| e.as_ref().is_some_and(McpEditor::waiting));
        form_actions_html(page.lang.get(), waiting)
    };
    let import_box = move || {
        import_open.track();
        let lang = page.lang.get();
        import.with_untracked(|i| import_box_html(lang, i))
    };
    let import_preview = move || {
        let lang = page.lang.get();
        import.with(|i| import_preview_html(lang, i))
    };
    let import_notes = move || {
        let lang = page.lang.get();
        import.with(|i| problems_html(&i.notes(lang)))
    };
    let cards = move || {
        let lang = page.lang.get();
        let editing = target.get().flatten();
        let confirming = ui.confirming.get();
        let utc_offset_min = utc_offset_min();
        ui.expanded.with(|expanded| {
            servers.with(|list| {
                list.iter()
                    .filter(|s| editing.as_ref() != Some(&s.id))
                    .map(|s| {
                        let card = ServerCard {
                            confirming: confirming.as_ref() == Some(&s.id),
                            expanded: expanded.contains(&s.id),
                            utc_offset_min,
                        };
                        server_html(lang, s, card)
                    })
                    .collect::<String>()
            })
        })
    };
    view! {
        <section id="mcp" class="mcp-section" on:click=move |ev| ui.on_click(&ev)
            on:input=move |ev| ui.on_input(&ev) on:change=move |ev| ui.on_change(&ev)>
            <div class="mcp-section-head" inner_html=head></div>
            <div class="mcp-import card" hidden=move || !import_open.get()>
                <div class="mcp-import-box" inner_html=import_box></div>
                <div class="mcp-import-preview" inner_html=import_preview></div>
            </div>
            <ul class="problems mcp-import-notes" role="alert" inner_html=import_notes></ul>
            <form class="mcp-form card" novalidate=true hidden=move || target.get().is_none()
                on:submit=move |ev| { ev.prevent_default(); ui.submit(); }>
                <div class="form-fields" inner_html=fields></div>
                <ul class="problems" role="alert" inner_html=problems></ul>
                <div class="actions" inner_html=actions></div>
            </form>
            <ul class="mcp-servers" inner_html=cards></ul>
        </section>
    }
}

/// The section's state beside the editor and the import, and what its events do.
#[derive(Debug, Clone, Copy)]
struct Section {
    engine: Engine,
    settings: Settings,
    /// The server whose delete waits for a confirmation.
    confirming: RwSignal<Option<String>>,
    /// Servers whose tools and calls are shown.
    expanded: RwSignal<Vec<String>>,
    /// Draws the form's fields again.
    redraw: RwSignal<u32>,
}

impl Section {
    fn editor(self) -> RwSignal<Option<McpEditor>> {
        self.settings.mcp_editor
    }

    fn import(self) -> RwSignal<McpImport> {
        self.settings.mcp_import
    }

    /// The stored server `id`.
    fn stored(self, id: &str) -> Option<McpServerView> {
        self.settings.view.with_untracked(|s| {
            s.as_ref().and_then(|s| s.mcp_servers.iter().find(|m| m.id == id).cloned())
        })
    }

    /// Opens the form (the import box closes: one thing at a time).
    fn open(self, editor: McpEditor) {
        self.import().set(McpImport::default());
        self.editor().set(Some(editor));
        self.redraw.update(|n| *n += 1);
        focus_later(".mcp-form input[name=mcp-name]");
    }

    /// Changes the open form as typing does (the fields already show it); a change clears the
    /// problems shown for the last try.
    fn edit_form(self, apply: impl FnOnce(&mut McpForm)) {
        self.editor().update(|e| {
            if let Some(e) = e {
                apply(&mut e.form);
                if !e.waiting() {
                    e.status = Default::default();
                }
            }
        });
    }

    /// Changes the open form where the person did not type (another auth, Replace): its
    /// fields are drawn again.
    fn reshape_form(self, apply: impl FnOnce(&mut McpForm)) {
        self.edit_form(apply);
        self.redraw.update(|n| *n += 1);
    }

    /// Sends an Op (boxed: one compiled copy of the client's send for all of them); its
    /// submission id when it went out.
    fn send(self, build: Box<dyn FnOnce(SubmissionId) -> Op>) -> Option<SubmissionId> {
        self.engine.send(build).ok()
    }

    /// Saves `server`. Chrome asks for access to its origin now, while the click or change
    /// still counts as the person's gesture: the engine's `fetch` needs it.
    fn save(self, server: McpServerInput) -> Option<SubmissionId> {
        if let Some(origin) = origin_of(&server.url) {
            host::request_host_access(&origin);
        }
        self.store(server)
    }

    /// Sends `server` to be stored, asking Chrome for nothing.
    fn store(self, server: McpServerInput) -> Option<SubmissionId> {
        self.send(Box::new(|submission_id| Op::McpSave(McpSaveParams { submission_id, server })))
    }

    fn on_click(self, ev: &leptos::ev::MouseEvent) {
        let Some(button) = closest_target(ev, "[data-act]") else {
            return;
        };
        let id = button.get_attribute("data-id").unwrap_or_default();
        match button.get_attribute("data-act").as_deref().unwrap_or_default() {
            "add" => self.open(McpEditor::default()),
            "cancel" => self.editor().set(None),
            "replace-token" => {
                self.reshape_form(|f| f.replacing_token = true);
                focus_later(".mcp-form input[name=mcp-token]");
            }
            "import" => {
                self.editor().set(None);
                self.import().set(McpImport { open: true, ..McpImport::default() });
                focus_later(".mcp-import textarea[name=mcp-import]");
            }
            "import-read" => self.import().update(McpImport::read),
            "import-cancel" => self.import().set(McpImport::default()),
            // Access to every chosen server's site is asked in one request, one question in
            // Chrome: with a request per server, Chrome may answer only the first.
            "import-add" => {
                let chosen = self.import().with_untracked(McpImport::chosen);
                let mut origins: Vec<String> = Vec::new();
                for origin in chosen.iter().filter_map(|server| origin_of(&server.url)) {
                    if !origins.contains(&origin) {
                        origins.push(origin);
                    }
                }
                if !origins.is_empty() {
                    host::request_origins_then(&origins, || {});
                }
                let sent = chosen.into_iter().filter_map(|server| self.store(server)).collect();
                self.import().update(|i| i.sent(sent));
            }
            // Chrome asks for access to the server's site, and for a sign-in to its
            // authorization server's too, now, inside the click (an answer from the engine
            // first would come after the gesture); the engine connects once Chrome answered,
            // so what was granted is in force when the module fetches.
            "connect" => {
                let origins = self.stored(&id).map(|s| access_origins(&s)).unwrap_or_default();
                host::request_origins_then(&origins, move || {
                    self.send(Box::new(|submission_id| {
                        Op::McpConnect(McpConnectParams { submission_id, server_id: id })
                    }));
                });
            }
            "edit" => {
                if let Some(view) = self.stored(&id) {
                    self.open(McpEditor::edit(&view));
                }
            }
            "ask-delete" => self.confirming.set(Some(id)),
            "keep" => self.confirming.set(None),
            "delete" => {
                self.confirming.set(None);
                self.expanded.update(|e| e.retain(|open| open != &id));
                self.send(Box::new(|submission_id| {
                    Op::McpDelete(McpDeleteParams { submission_id, server_id: id })
                }));
            }
            "details" => self.expanded.update(|expanded| {
                if expanded.contains(&id) {
                    expanded.retain(|open| open != &id);
                } else {
                    expanded.push(id);
                }
            }),
            _ => {}
        }
    }

    fn on_input(self, ev: &leptos::ev::Event) {
        let Some(field) = target_element(ev) else {
            return;
        };
        let text = event_target_value(ev);
        match field.get_attribute("name").as_deref() {
            Some("mcp-name") => self.edit_form(|f| f.name = text),
            Some("mcp-url") => self.edit_form(|f| f.url = text),
            Some("mcp-token") => self.edit_form(|f| f.token = text),
            Some("mcp-client-id") => self.edit_form(|f| f.oauth_client_id = text),
            Some("mcp-timeout") => self.edit_form(|f| f.timeout_s = text),
            Some("mcp-headers") => self.edit_form(|f| f.headers = text),
            // A new text is read again with Preview; the old preview goes.
            Some("mcp-import") => self.import().update(|i| {
                i.text = text;
                i.preview = None;
            }),
            _ => {}
        }
    }

    fn on_change(self, ev: &leptos::ev::Event) {
        let Some(field) = target_element(ev) else {
            return;
        };
        let value = event_target_value(ev);
        let id = field.get_attribute("data-id").unwrap_or_default();
        match field.get_attribute("name").as_deref() {
            Some("mcp-auth") => {
                if let Some(auth) = auth_from_value(&value) {
                    self.reshape_form(|f| f.auth = auth);
                }
            }
            Some("mcp-connect") => {
                if let Some(mode) = connect_from_value(&value) {
                    self.edit_form(|f| f.connect = mode);
                }
            }
            Some("mcp-enabled") => {
                let on = event_target_checked(ev);
                if let Some(view) = self.stored(&id) {
                    self.save(with_enabled(&view, on));
                }
            }
            Some("mcp-tool") => {
                let on = event_target_checked(ev);
                if let Some(view) = self.stored(&id) {
                    self.save(with_tool(&view, &value, on));
                }
            }
            Some("mcp-import-pick") => {
                let chosen = event_target_checked(ev);
                let index = field.get_attribute("data-index").and_then(|i| i.parse().ok());
                if let Some(index) = index {
                    self.import().update(|i| i.choose(index, chosen));
                }
            }
            _ => {}
        }
    }

    fn submit(self) {
        let Some(mut shown) = self.editor().get_untracked() else { return };
        if shown.waiting() {
            return;
        }
        if let Some(server) = shown.submit() {
            let known = self.settings.view.with_untracked(|s| {
                s.iter().flat_map(|s| &s.mcp_servers).map(|m| m.id.clone()).collect()
            });
            if let Some(submission_id) = self.save(server) {
                shown.sent(submission_id, known);
            }
        }
        self.editor().set(Some(shown));
    }
}

/// Focuses the element `selector` of the page once the section is drawn again.
fn focus_later(selector: &'static str) {
    request_animation_frame(move || {
        let found = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(selector).ok().flatten());
        if let Some(element) = found.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = element.focus();
        }
    });
}
