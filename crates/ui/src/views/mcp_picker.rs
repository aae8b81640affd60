//! The composer's MCP prompts and resources (only when an MCP server is configured): the slash
//! menu that opens on a leading `/` (arrows, Enter or Tab, Escape, or the mouse), a prompt's
//! argument form, the resource list of the attach menu, the chips of fetches under way and the
//! reason of a refused one. The logic is `state::mcp_picker`'s; server text is shown as text.

use leptos::prelude::*;
use panelot_protocol::engine::McpFetch;
use panelot_protocol::engine::McpPromptView;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use super::icon::icon;
use crate::contexts::Draft;
use crate::contexts::Engine;
use crate::contexts::Mcp;
use crate::contexts::Settings;
use crate::contexts::use_draft;
use crate::contexts::use_engine;
use crate::contexts::use_mcp;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::mcp_picker::MenuKey;
use crate::state::mcp_picker::PromptChoice;
use crate::state::mcp_picker::choose_prompt;
use crate::state::mcp_picker::matching_prompts;
use crate::state::mcp_picker::menu_key;
use crate::state::mcp_picker::prompt_command;
use crate::state::mcp_picker::resources_by_server;
use crate::state::mcp_picker::server_name;
use crate::state::mcp_picker::slash_query;
use crate::state::mcp_picker::step_selection;
use crate::state::mcp_picker::without_slash_command;

/// Whether at least one MCP server is configured (tracked): otherwise nothing here shows.
pub(crate) fn has_servers(settings: Settings) -> bool {
    settings.view.with(|v| v.as_ref().is_some_and(|s| !s.mcp_servers.is_empty()))
}

/// The slash query while the menu shows (tracked): servers configured, the box a slash command,
/// the menu not dismissed and no argument form open.
fn menu_query(mcp: Mcp, settings: Settings, text: &str) -> Option<String> {
    let shown = has_servers(settings) && !mcp.dismissed.get() && mcp.form.with(Option::is_none);
    slash_query(text).filter(|_| shown).map(str::to_owned)
}

/// The prompts the menu lists for `query` (tracked).
fn menu_prompts(mcp: Mcp, query: &str) -> Vec<McpPromptView> {
    mcp.catalog.with(|c| matching_prompts(&c.prompts, query).into_iter().cloned().collect())
}

/// Focuses the element `selector` after the next frame (once it is rendered).
pub(crate) fn focus_later(selector: &'static str) {
    request_animation_frame(move || {
        let element = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(selector).ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(element) = element {
            let _ = element.focus();
        }
    });
}

/// The contexts the slash menu's handlers need, found when a component is made: an event
/// handler runs outside the reactive owner, where contexts cannot be looked up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Picker {
    mcp: Mcp,
    settings: Settings,
    draft: Draft,
    engine: Engine,
}

impl Picker {
    /// The picker of this page (call while making a component).
    pub(crate) fn new() -> Picker {
        Picker {
            mcp: use_mcp(),
            settings: use_settings(),
            draft: use_draft(),
            engine: use_engine(),
        }
    }

    /// Chooses `prompt`: its argument form opens, or it is fetched at once. Either way the
    /// slash command typed leaves the box: the choice replaces it, as a menu's choice does.
    fn choose(self, prompt: &McpPromptView) {
        self.draft.text.update(|t| *t = without_slash_command(t));
        match choose_prompt(prompt) {
            PromptChoice::Ask(form) => {
                self.mcp.form.set(Some(form));
                focus_later(".mcp-args input");
            }
            PromptChoice::Fetch(fetch) => self.mcp.fetch(self.engine, &prompt.server_id, fetch),
        }
    }

    /// The id of the highlighted option while the menu shows (tracked): the text box's
    /// `aria-activedescendant`, so a screen reader follows the arrows.
    pub(crate) fn active_option(self) -> Option<String> {
        let query = self.draft.text.with(|t| menu_query(self.mcp, self.settings, t))?;
        let n_prompts = self.mcp.catalog.with(|c| matching_prompts(&c.prompts, &query).len());
        let selected = step_selection(self.mcp.selected.get(), n_prompts, MenuKey::Choose);
        (n_prompts > 0).then(|| format!("slash-option-{selected}"))
    }

    /// The composer's keys while the slash menu shows; returns whether the key was the menu's
    /// (then the composer leaves it alone). Enter on an empty menu sends the text as typed.
    pub(crate) fn keydown(self, event: &KeyboardEvent) -> bool {
        let Picker { mcp, settings, draft, .. } = self;
        let Some(key) = menu_key(&event.key(), event.shift_key(), event.is_composing()) else {
            return false;
        };
        let Some(query) = untrack(|| draft.text.with(|t| menu_query(mcp, settings, t))) else {
            return false;
        };
        let prompts = untrack(|| menu_prompts(mcp, &query));
        match key {
            MenuKey::Close => mcp.dismissed.set(true),
            MenuKey::Up | MenuKey::Down if !prompts.is_empty() => {
                mcp.selected.update(|s| *s = step_selection(*s, prompts.len(), key));
            }
            MenuKey::Choose if !prompts.is_empty() => {
                let index = step_selection(mcp.selected.get_untracked(), prompts.len(), key);
                self.choose(&prompts[index]);
            }
            MenuKey::Up | MenuKey::Down | MenuKey::Choose => return false,
        }
        event.prevent_default();
        true
    }
}

/// The slash menu, above the text box while it is a slash command. It asks for the prompts when
/// it opens (a listing is used for a while), and shows failures in words.
#[component]
pub(crate) fn SlashMenu() -> impl IntoView {
    let page = use_page();
    let picker = Picker::new();
    let Picker { mcp, settings, draft, engine } = picker;
    let query = Memo::new(move |_| draft.text.with(|t| menu_query(mcp, settings, t)));
    Effect::new(move |_| {
        let open = query.with(Option::is_some);
        mcp.selected.set(0);
        if draft.text.with(|t| slash_query(t).is_none()) {
            mcp.dismissed.set(false);
        }
        if open {
            mcp.refresh(engine);
        }
    });
    move || {
        let query = query.get()?;
        let lang = page.lang.get();
        let prompts = menu_prompts(mcp, &query);
        let selected = step_selection(mcp.selected.get(), prompts.len(), MenuKey::Choose);
        let options = prompts
            .into_iter()
            .enumerate()
            .map(|(index, prompt)| {
                let command = prompt_command(&prompt);
                let data_command = command.clone();
                let title = (prompt.title != prompt.name).then(|| prompt.title.clone());
                let description = prompt.description.clone();
                view! {
                    <li role="option" class="slash-option" id=format!("slash-option-{index}")
                        aria-selected=(index == selected).to_string() data-command=data_command
                        // Keeps the focus in the text box: the choice is made on the click.
                        on:mousedown=|ev| ev.prevent_default()
                        on:mouseenter=move |_| mcp.selected.set(index)
                        on:click=move |_| picker.choose(&prompt)>
                        <span class="slash-line">
                            <span class="slash-command">{command}</span>
                            {title.map(|t| view! { <span class="slash-title">{t}</span> })}
                        </span>
                        {description.map(|d| view! { <span class="slash-description">{d}</span> })}
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <div class="slash-menu" id="slash-menu" role="listbox" aria-label=i18n::text(lang, Msg::McpPrompts)>
                <ListingStatus empty=Msg::McpNoPrompts query=query/>
                <ul>{options}</ul>
                <p class="slash-hint">{i18n::text(lang, Msg::McpMenuHint)}</p>
            </div>
        })
    }
}

/// What the listing says besides its entries: asking, the engine's refusal, each server that
/// failed, and `empty` (or "nothing matches" for a `query`) when it has no prompts to show.
#[component]
fn ListingStatus(
    /// What an empty listing says.
    empty: Msg,
    /// The slash query (empty for the resource list).
    #[prop(optional, into)]
    query: String,
) -> impl IntoView {
    let (page, mcp, settings) = (use_page(), use_mcp(), use_settings());
    move || {
        let lang = page.lang.get();
        let servers = settings.view.with(|v| v.as_ref().map(|s| s.mcp_servers.clone()));
        let servers = servers.unwrap_or_default();
        mcp.catalog.with(|catalog| {
            let mut lines = Vec::new();
            if let Some(reason) = &catalog.refusal {
                let reason = i18n::engine_text(lang, reason);
                lines.push(i18n::format(lang, Msg::McpListRefused, &[("reason", &reason)]));
            }
            for failure in &catalog.failures {
                let server = server_name(&servers, &failure.server_id);
                let args = [("server", server), ("reason", failure.reason.as_str())];
                lines.push(i18n::format(lang, Msg::McpListFailed, &args));
            }
            let n_shown = if empty == Msg::McpNoPrompts {
                matching_prompts(&catalog.prompts, &query).len()
            } else {
                catalog.resources.len()
            };
            if catalog.loading() {
                lines.push(i18n::text(lang, Msg::McpListing).to_owned());
            } else if n_shown == 0 && catalog.refusal.is_none() {
                let nothing = match (query.is_empty(), empty) {
                    (false, Msg::McpNoPrompts) => {
                        i18n::format(lang, Msg::McpNoMatch, &[("query", &query)])
                    }
                    _ => i18n::text(lang, empty).to_owned(),
                };
                lines.push(nothing);
            }
            lines
                .into_iter()
                .map(|line| view! { <p class="mcp-listing-status">{line}</p> })
                .collect_view()
        })
    }
}

/// The argument form of the prompt chosen: one field per argument (required ones marked),
/// Enter adds the prompt, Escape goes back to the text box.
#[component]
pub(crate) fn PromptArgsForm() -> impl IntoView {
    let (page, mcp, engine, draft) = (use_page(), use_mcp(), use_engine(), use_draft());
    let close = move || {
        mcp.form.set(None);
        focus_later(".composer textarea");
    };
    let submit = move || {
        let Some(mut form) = mcp.form.get_untracked() else { return };
        match form.submit() {
            Some(fetch) => {
                mcp.fetch(engine, &form.prompt.server_id, fetch);
                draft.text.update(|t| *t = without_slash_command(t));
                close();
            }
            None => mcp.form.set(Some(form)),
        }
    };
    let on_keydown = move |event: KeyboardEvent| match event.key().as_str() {
        "Enter" if !event.is_composing() => {
            event.prevent_default();
            submit();
        }
        "Escape" => {
            // Escape in the composer stops a turn; here it only closes the form.
            event.prevent_default();
            event.stop_propagation();
            close();
        }
        _ => {}
    };
    move || {
        let form = mcp.form.get()?;
        let lang = page.lang.get();
        let command = prompt_command(&form.prompt);
        let heading = i18n::format(lang, Msg::McpPromptArguments, &[("command", &command)]);
        let group_label = heading.clone();
        let fields = form
            .prompt
            .arguments
            .iter()
            .enumerate()
            .map(|(index, argument)| {
                let missing = form.missing.contains(&index);
                let error = missing.then(|| {
                    i18n::format(lang, Msg::McpArgumentMissing, &[("name", &argument.name)])
                });
                let required = argument.required.then(|| {
                    view! { <span class="required">{i18n::text(lang, Msg::McpRequired)}</span> }
                });
                view! {
                    <label class="mcp-arg" data-argument=argument.name.clone()>
                        <span class="mcp-arg-name">{argument.name.clone()}{required}</span>
                        <input type="text" value=form.values[index].clone()
                            required=argument.required aria-invalid=missing.to_string()
                            placeholder=argument.description.clone().unwrap_or_default()
                            on:input=move |ev| {
                                let value = event_target_value(&ev);
                                mcp.form.update(|f| if let Some(f) = f { f.set(index, value) });
                            }/>
                        {error.map(|e| view! { <span class="mcp-arg-error" role="alert">{e}</span> })}
                    </label>
                }
            })
            .collect_view();
        Some(view! {
            <div class="mcp-args" role="group" aria-label=group_label on:keydown=on_keydown>
                <p class="mcp-args-title">{heading}</p>
                {form.prompt.description.clone().map(|d| view! { <p class="mcp-args-description">{d}</p> })}
                {fields}
                <div class="mcp-args-actions">
                    <button type="button" class="btn-ghost" on:click=move |_| close()>
                        {i18n::text(lang, Msg::Cancel)}
                    </button>
                    <button type="button" class="btn-primary mcp-args-add" on:click=move |_| submit()>
                        {i18n::text(lang, Msg::McpAddPrompt)}
                    </button>
                </div>
            </div>
        })
    }
}

/// The resource list of the attach menu, server by server; choosing one reads it into a chip
/// (`on_chosen` then closes the menu).
#[component]
pub(crate) fn ResourceList(
    /// Whether the list is shown (the attach menu's other items are hidden meanwhile).
    shown: RwSignal<bool>,
    /// Runs once a resource was chosen.
    on_chosen: Callback<()>,
) -> impl IntoView {
    let (page, mcp, settings, engine) = (use_page(), use_mcp(), use_settings(), use_engine());
    let groups = move || {
        let servers = settings.view.with(|v| v.as_ref().map(|s| s.mcp_servers.clone()));
        let servers = servers.unwrap_or_default();
        let pending = mcp.fetches.with(|f| f.pending.clone());
        mcp.catalog.with(|catalog| {
            resources_by_server(&catalog.resources, &servers)
                .into_iter()
                .map(|(server, resources)| {
                    let items = resources
                        .into_iter()
                        .map(|resource| {
                            let busy = pending.iter().any(|p| p.label == resource.uri);
                            let (server_id, uri) = (resource.server_id.clone(), resource.uri.clone());
                            let pick = move |_| {
                                let fetch = McpFetch::Resource { uri: uri.clone() };
                                mcp.fetch(engine, &server_id, fetch);
                                shown.set(false);
                                on_chosen.run(());
                            };
                            view! {
                                <button type="button" role="menuitem" class="mcp-resource"
                                    data-uri=resource.uri.clone() disabled=busy aria-busy=busy.to_string()
                                    on:click=pick>
                                    <span class="mcp-resource-title">{resource.title.clone()}</span>
                                    <span class="mcp-resource-uri">{resource.uri.clone()}</span>
                                </button>
                            }
                        })
                        .collect_view();
                    view! { <p class="popover-title">{server.to_owned()}</p>{items} }
                })
                .collect_view()
        })
    };
    view! {
        <div class="mcp-resources menu" hidden=move || !shown.get()>
            <button type="button" role="menuitem" class="mcp-back" on:click=move |_| shown.set(false)>
                {icon(Icon::ChevronLeft)}{move || page.text(Msg::McpBack)}
            </button>
            <ListingStatus empty=Msg::McpNoResources/>
            {groups}
        </div>
    }
}

/// The chips of fetches under way, after the attached ones.
#[component]
pub(crate) fn PendingChips() -> impl IntoView {
    let (page, mcp) = (use_page(), use_mcp());
    move || {
        let lang = page.lang.get();
        mcp.fetches.with(|f| {
            let msg = if f.held.is_some() { Msg::McpFetchingThenSend } else { Msg::McpFetching };
            f.pending
                .iter()
                .map(|p| {
                    let text = i18n::format(lang, msg, &[("label", &p.label)]);
                    // Cut to the chip's width at 360 px: the whole text shows on hover.
                    let title = text.clone();
                    view! {
                        <li class="chip busy" aria-busy="true" title=title>{icon(Icon::Running)}<span>{text}</span></li>
                    }
                })
                .collect_view()
        })
    }
}

/// The reason the last fetch was refused, near the text box, until dismissed or a new fetch.
#[component]
pub(crate) fn FetchRefusal() -> impl IntoView {
    let (page, mcp) = (use_page(), use_mcp());
    move || {
        let lang = page.lang.get();
        let (label, reason) = mcp.fetches.with(|f| f.refusal.clone())?;
        let reason = i18n::engine_text(lang, &reason);
        let text =
            i18n::format(lang, Msg::McpFetchRefused, &[("label", &label), ("reason", &reason)]);
        let dismiss = i18n::text(lang, Msg::Dismiss);
        Some(view! {
            <p class="mcp-refusal" role="alert">
                <span>{text}</span>
                <button type="button" class="btn-icon btn-ghost" aria-label=dismiss title=dismiss
                    on:click=move |_| mcp.fetches.update(|f| f.refusal = None)>{icon(Icon::Close)}</button>
            </p>
        })
    }
}
