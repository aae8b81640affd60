//! The options page's model connections: a card per stored connection (what it is, the findings
//! of its last check, a model picker filled from the server's list, Check again, Edit, Delete
//! asking first) and the form that adds or edits one. Saving checks at once: once the engine
//! stored the connection, `connection.verify` runs and its findings show on its card.
//!
//! The markup is HTML text from `state::connection_markup` and the section handles the events
//! of everything in it (clicks by `data-act`, fields by `name`): Leptos views compile render
//! code per element tree and per closure, and this section in views cost more of the UI's wasm
//! budget than the rest of the page. The form's fields are drawn again only when their set
//! changes (opened, another provider, a key row added or removed, another language), never
//! while typing; what they hold is read from their events into the editor.

use leptos::prelude::*;
use panelot_protocol::ConnectionId;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ConnectionDeleteParams;
use panelot_protocol::engine::ConnectionInput;
use panelot_protocol::engine::ConnectionSaveParams;
use panelot_protocol::engine::ConnectionVerifyParams;
use wasm_bindgen::JsCast;

use super::events::closest_target;
use super::events::target_element;
use crate::contexts::Engine;
use crate::contexts::Settings;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::host;
use crate::state::connection_form::ConnectionEditor;
use crate::state::connection_form::ConnectionForm;
use crate::state::connection_form::ConnectionKind;
use crate::state::connection_form::template_of;
use crate::state::connection_form::with_model;
use crate::state::connection_markup::CardState;
use crate::state::connection_markup::FormContext;
use crate::state::connection_markup::card_html;
use crate::state::connection_markup::form_actions_html;
use crate::state::connection_markup::form_html;
use crate::state::connection_markup::head_html;
use crate::state::connection_markup::problems_html;
use crate::state::urls::origin_of;

/// Model connections: the stored ones and the form. With none stored the form is open at once
/// (first run); `options.html#connect` brings it into view.
#[component]
pub(crate) fn ConnectionsSection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let editor = settings.connection_editor;
    let ui = Section {
        engine,
        settings,
        confirming: RwSignal::new(None),
        chosen: RwSignal::new(Vec::new()),
        redraw: RwSignal::new(0),
    };
    let loaded = move || settings.view.with(Option::is_some);
    let connections = Memo::new(move |_| {
        settings.view.with(|s| s.as_ref().map(|s| s.connections.clone()).unwrap_or_default())
    });
    let none_stored = move || loaded() && connections.with(Vec::is_empty);
    // What the form is open for: `None` closed, `Some(None)` a new connection, else the one
    // edited. Typing leaves it alone.
    let target = Memo::new(move |_| editor.with(|e| e.as_ref().map(|e| e.editing.clone())));
    // First run: the form is open, on the first provider.
    Effect::new(move |_| {
        if none_stored() && editor.with_untracked(Option::is_none) {
            ui.open_new();
        }
    });
    // A save the engine stored is checked at once; the form closes.
    Effect::new(move |_| {
        let saved =
            connections.with(|list| editor.with(|e| e.as_ref().and_then(|e| e.saved(list))));
        if let Some(id) = saved {
            editor.set(None);
            ui.verify(id);
        }
    });
    let section = NodeRef::<leptos::html::Section>::new();
    // The first-run button of the other pages opens `options.html#connect`.
    Effect::new(move |_| {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok());
        if hash.as_deref() == Some("#connect")
            && target.get().is_some()
            && let Some(section) = section.get()
        {
            section.scroll_into_view();
            focus_in(&section, "select[name=provider]");
        }
    });
    let head =
        move || head_html(page.lang.get(), target.get().is_none() && !none_stored(), none_stored());
    let fields = move || {
        ui.redraw.track();
        let lang = page.lang.get();
        // What was typed is read untracked: typing must not draw the fields again.
        editor.with_untracked(|e| {
            let e = e.as_ref()?;
            settings.view.with_untracked(|s| {
                let s = s.as_ref()?;
                let listed = e
                    .editing
                    .as_ref()
                    .and_then(|id| settings.last_check(id))
                    .and_then(|c| c.models)
                    .unwrap_or_default();
                let cx = FormContext {
                    templates: &s.templates,
                    quirk_names: &s.quirk_names,
                    listed: &listed,
                };
                Some(form_html(lang, &e.form, cx))
            })
        })
    };
    let problems = move || {
        let lang = page.lang.get();
        editor.with(|e| problems_html(&e.as_ref().map(|e| e.notes(lang)).unwrap_or_default()))
    };
    let actions = move || {
        let waiting = editor.with(|e| e.as_ref().is_some_and(ConnectionEditor::waiting));
        let cancellable =
            target.get().is_some_and(|t| t.is_some()) || !connections.with(Vec::is_empty);
        form_actions_html(page.lang.get(), waiting, cancellable)
    };
    let cards = move || {
        let lang = page.lang.get();
        let editing = target.get().flatten();
        let confirming = ui.confirming.get();
        let chosen = ui.chosen.get();
        settings.view.with(|s| {
            let templates = s.as_ref().map(|s| s.templates.as_slice()).unwrap_or_default();
            settings.checks.with(|checks| {
                connections.with(|list| {
                    list.iter()
                        .filter(|c| editing.as_ref() != Some(&c.id))
                        .map(|c| {
                            let chosen = chosen
                                .iter()
                                .find(|(id, _)| id == &c.id)
                                .map(|(_, m)| m.as_str())
                                .or(c.model_ids.first().map(String::as_str))
                                .unwrap_or_default();
                            let state = CardState {
                                provider: template_of(templates, c).map(|t| t.name.as_str()),
                                check: checks.iter().find(|(id, _)| id == &c.id).map(|(_, r)| r),
                                confirming: confirming.as_ref() == Some(&c.id),
                                chosen,
                            };
                            card_html(lang, c, state)
                        })
                        .collect::<String>()
                })
            })
        })
    };
    view! {
        <section id="connect" class="connections-section" node_ref=section
            on:click=move |ev| ui.on_click(&ev) on:input=move |ev| ui.on_input(&ev)
            on:change=move |ev| ui.on_change(&ev)>
            <div class="connections-head" inner_html=head></div>
            <form class="connection-form card" novalidate=true hidden=move || target.get().is_none()
                on:submit=move |ev| { ev.prevent_default(); ui.submit(); }>
                <div class="form-fields" inner_html=fields></div>
                <ul class="problems" role="alert" inner_html=problems></ul>
                <div class="actions" inner_html=actions></div>
            </form>
            <ul class="connections" inner_html=cards></ul>
        </section>
    }
}

/// The section's state beside the editor, and what its events do.
#[derive(Debug, Clone, Copy)]
struct Section {
    engine: Engine,
    settings: Settings,
    /// The connection whose delete waits for a confirmation.
    confirming: RwSignal<Option<ConnectionId>>,
    /// The model chosen in each card's picker.
    chosen: RwSignal<Vec<(ConnectionId, String)>>,
    /// Draws the form's fields again.
    redraw: RwSignal<u32>,
}

impl Section {
    fn editor(self) -> RwSignal<Option<ConnectionEditor>> {
        self.settings.connection_editor
    }

    /// Opens the form for a new connection on the first provider.
    fn open_new(self) {
        let first = self
            .settings
            .view
            .with_untracked(|s| s.as_ref().and_then(|s| s.templates.first().cloned()));
        if let Some(first) = first {
            self.open(ConnectionEditor::add(&first));
        }
    }

    fn open(self, editor: ConnectionEditor) {
        self.editor().set(Some(editor));
        self.redraw.update(|n| *n += 1);
    }

    /// Changes the open form as typing does (the fields already show it); a change clears the
    /// problems shown for the last try.
    fn edit_form(self, apply: impl FnOnce(&mut ConnectionForm)) {
        self.editor().update(|e| {
            if let Some(e) = e {
                apply(&mut e.form);
                if !e.waiting() {
                    e.status = Default::default();
                }
            }
        });
    }

    /// Changes the open form where the person did not type (rows, a provider's values): its
    /// fields are drawn again.
    fn reshape_form(self, apply: impl FnOnce(&mut ConnectionForm)) {
        self.edit_form(apply);
        self.redraw.update(|n| *n += 1);
    }

    /// Sends an Op (boxed: one compiled copy of the client's send for all of them); its
    /// submission id when it went out.
    fn send(self, build: Box<dyn FnOnce(SubmissionId) -> Op>) -> Option<SubmissionId> {
        self.engine.send(build).ok()
    }

    fn save(self, connection: ConnectionInput) -> Option<SubmissionId> {
        self.send(Box::new(|submission_id| {
            Op::ConnectionSave(ConnectionSaveParams { submission_id, connection })
        }))
    }

    /// Asks the engine to check `id`; the card shows "checking" until the findings arrive.
    fn verify(self, id: ConnectionId) {
        self.settings.record_check(id.clone(), None);
        self.send(Box::new(|submission_id| {
            Op::ConnectionVerify(ConnectionVerifyParams {
                submission_id,
                connection_id: id,
                model: None,
            })
        }));
    }

    fn on_click(self, ev: &leptos::ev::MouseEvent) {
        let Some(button) = closest_target(ev, "[data-act]") else {
            return;
        };
        let attr = |name| button.get_attribute(name).unwrap_or_default();
        let id = ConnectionId::new(attr("data-id")).ok();
        let index = attr("data-index").parse::<usize>().ok();
        let stored = |id: &ConnectionId| {
            self.settings.view.with_untracked(|s| {
                s.as_ref().and_then(|s| s.connections.iter().find(|c| &c.id == id).cloned())
            })
        };
        match (attr("data-act").as_str(), id, index) {
            ("add", ..) => self.open_new(),
            ("cancel", ..) => self.editor().set(None),
            ("add-key", ..) => {
                self.reshape_form(ConnectionForm::add_key);
                self.focus_later(".key-row:last-child input");
            }
            ("remove-key", _, Some(index)) => self.reshape_form(|f| f.remove_key(index)),
            ("check", Some(id), _) => self.verify(id),
            ("edit", Some(id), _) => {
                let templates = self.settings.view.with_untracked(|s| {
                    s.as_ref().map(|s| s.templates.clone()).unwrap_or_default()
                });
                if let Some(view) = stored(&id) {
                    self.open(ConnectionEditor::edit(&view, &templates));
                    self.focus_later("input[name=name]");
                }
            }
            ("ask-delete", Some(id), _) => self.confirming.set(Some(id)),
            ("keep", ..) => self.confirming.set(None),
            ("delete", Some(connection_id), _) => {
                self.confirming.set(None);
                self.settings.checks.update(|checks| checks.retain(|(c, _)| c != &connection_id));
                self.send(Box::new(|submission_id| {
                    Op::ConnectionDelete(ConnectionDeleteParams { submission_id, connection_id })
                }));
            }
            ("use-model", Some(id), _) => {
                let model = self.chosen.with_untracked(|chosen| {
                    chosen.iter().find(|(c, _)| c == &id).map(|(_, m)| m.clone())
                });
                if let (Some(model), Some(view)) = (model, stored(&id))
                    && self.save(with_model(&view, &model)).is_some()
                {
                    // The engine handles one page's commands in order: the check sees the model.
                    self.verify(id);
                }
            }
            _ => {}
        }
    }

    fn on_input(self, ev: &leptos::ev::Event) {
        let Some(field) = target_element(ev) else {
            return;
        };
        let text = event_target_value(ev);
        match field.get_attribute("name").as_deref() {
            Some("name") => self.edit_form(|f| f.name = text),
            Some("base-url") => self.edit_form(|f| f.base_url = text),
            Some("model") => self.edit_form(|f| f.model = text),
            Some("headers") => self.edit_form(|f| f.headers = text),
            Some("price-input") => self.edit_form(|f| f.price_input = text),
            Some("price-output") => self.edit_form(|f| f.price_output = text),
            Some("api-key") => {
                let index = field.get_attribute("data-index").and_then(|i| i.parse().ok());
                if let Some(index) = index {
                    self.edit_form(|f| f.type_key(index, text));
                }
            }
            _ => {}
        }
    }

    fn on_change(self, ev: &leptos::ev::Event) {
        let Some(field) = target_element(ev) else {
            return;
        };
        let value = event_target_value(ev);
        match field.get_attribute("name").as_deref() {
            Some("provider") => {
                let template = self.settings.view.with_untracked(|s| {
                    s.as_ref().and_then(|s| s.templates.iter().find(|t| t.id == value).cloned())
                });
                if let Some(template) = template {
                    self.reshape_form(|f| f.apply_template(&template));
                }
            }
            Some("kind") => {
                if let Some(kind) = ConnectionKind::from_value(&value) {
                    self.edit_form(|f| f.kind = kind);
                }
            }
            Some("quirk") => {
                let on = event_target_checked(ev);
                self.edit_form(|f| f.set_quirk(&value, on));
            }
            Some("pick-model") => {
                if let Some(id) =
                    field.get_attribute("data-id").and_then(|i| ConnectionId::new(i).ok())
                {
                    self.chosen.update(|chosen| {
                        chosen.retain(|(c, _)| c != &id);
                        chosen.push((id, value));
                    });
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
        if let Some(connection) = shown.submit() {
            // Chrome asks for access to the server now, while the click still counts as the
            // person's gesture.
            if let Some(origin) = origin_of(&connection.base_url) {
                host::request_host_access(&origin);
            }
            let known = self.settings.view.with_untracked(|s| {
                s.iter().flat_map(|s| &s.connections).map(|c| c.id.clone()).collect()
            });
            if let Some(submission_id) = self.save(connection) {
                shown.sent(submission_id, known);
            }
        }
        self.editor().set(Some(shown));
    }

    /// Focuses the element `selector` of the form once its fields are drawn again.
    fn focus_later(self, selector: &'static str) {
        request_animation_frame(move || {
            if let Some(form) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.query_selector(".connection-form").ok().flatten())
            {
                focus_in(&form, selector);
            }
        });
    }
}

/// Focuses the element `selector` finds inside `root`.
fn focus_in(root: &web_sys::Element, selector: &str) {
    let found = root.query_selector(selector).ok().flatten();
    if let Some(element) = found.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = element.focus();
    }
}
