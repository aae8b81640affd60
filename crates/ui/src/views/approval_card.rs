//! The approval card: one sentence saying what will happen and where, the site, why it asks
//! (flags as chips), the call itself on demand, a note for a decline, and two choices, Allow and
//! Decline, with the rest (allow until the browser closes, always on this site, decline and
//! stop) in a menu. Y, S, A (with a site), N and Esc answer it from the keyboard; several
//! pending approvals show as "1 of 3", oldest first.

use leptos::ev;
use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::ApprovalDecision;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::ApprovalResponseParams;
use panelot_protocol::engine::PendingApproval;
use wasm_bindgen::JsCast;

use super::icon::icon;
use super::popover::Popover;
use crate::contexts::Engine;
use crate::contexts::use_engine;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::activity::approval_sentence;
use crate::state::activity::fill;
use crate::state::activity::site_of;
use crate::state::activity::with_file_names;

/// Answers an approval. Accepting one whose target the extension may not reach yet
/// (`host_permission`) first asks Chrome for that origin, inside this click or key press (the
/// browser only asks during a user gesture); the answer goes to the engine once Chrome replied.
fn respond(engine: Engine, approval: &PendingApproval, decision: ApprovalDecision) {
    let accepts = match &decision {
        ApprovalDecision::Accept
        | ApprovalDecision::AcceptForSession
        | ApprovalDecision::AcceptForSite => true,
        ApprovalDecision::Decline { .. } | ApprovalDecision::Cancel => false,
    };
    let approval_id = approval.approval_id.clone();
    let send = move || {
        let _ = engine.send(|submission_id| {
            Op::ApprovalResponse(ApprovalResponseParams { submission_id, approval_id, decision })
        });
    };
    let request = &approval.request;
    match (&request.target_origin, accepts && request.flags.contains(&ApprovalFlag::HostPermission))
    {
        (Some(origin), true) => host::request_origin_then(origin, send),
        _ => send(),
    }
}

/// The catalog key of an approval flag.
fn flag_label(flag: ApprovalFlag) -> Msg {
    match flag {
        ApprovalFlag::SensitivePayload => Msg::FlagSensitivePayload,
        ApprovalFlag::EscalationL2 => Msg::FlagEscalation,
        ApprovalFlag::HostPermission => Msg::FlagHostPermission,
        ApprovalFlag::TaintedInput => Msg::FlagTainted,
        ApprovalFlag::InternationalizedHost => Msg::FlagIdnHost,
    }
}

/// The machine name of an approval flag, for `data-flag`.
fn flag_name(flag: ApprovalFlag) -> &'static str {
    match flag {
        ApprovalFlag::SensitivePayload => "sensitive_payload",
        ApprovalFlag::EscalationL2 => "escalation_l2",
        ApprovalFlag::HostPermission => "host_permission",
        ApprovalFlag::TaintedInput => "tainted_input",
        ApprovalFlag::InternationalizedHost => "internationalized_host",
    }
}

/// A decline with the note typed into the card, if any.
fn decline(note: String) -> ApprovalDecision {
    let note = note.trim();
    ApprovalDecision::Decline { note: (!note.is_empty()).then(|| note.to_owned()) }
}

/// The oldest pending approval of the open thread.
#[component]
pub(crate) fn ApprovalCard() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let current = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().and_then(|v| v.approvals.first().cloned()))
    });
    let count = Memo::new(move |_| open.view.with(|v| v.as_ref().map_or(0, |v| v.approvals.len())));
    // The note of the card showing; a new card starts without one.
    let note = RwSignal::new(String::new());
    let menu = RwSignal::new(false);
    let handle = window_event_listener(ev::keydown, move |event| {
        let Some(approval) = current.get_untracked() else { return };
        // Typing (in the decline note, say) is not an answer.
        let in_text_field = event.target().is_some_and(|t| {
            t.clone().dyn_into::<web_sys::HtmlTextAreaElement>().is_ok()
                || t.dyn_into::<web_sys::HtmlInputElement>().is_ok()
        });
        if in_text_field || event.ctrl_key() || event.meta_key() || event.alt_key() {
            return;
        }
        let decision = match event.key().as_str() {
            "y" | "Y" => ApprovalDecision::Accept,
            // Both grants need a site (the engine refuses them for a call without one, an MCP
            // call say): a card without an origin offers neither.
            "s" | "S" if approval.request.target_origin.is_some() => {
                ApprovalDecision::AcceptForSession
            }
            "a" | "A" if approval.request.target_origin.is_some() => {
                ApprovalDecision::AcceptForSite
            }
            "n" | "N" => decline(note.get_untracked()),
            "Escape" => ApprovalDecision::Cancel,
            _ => return,
        };
        event.prevent_default();
        respond(engine, &approval, decision);
    });
    on_cleanup(move || handle.remove());
    move || {
        current.get().map(|approval| {
            let lang = page.lang.get_untracked();
            let t = move |msg| i18n::text(lang, msg);
            note.set(String::new());
            menu.set(false);
            let request = &approval.request;
            let named = with_file_names(request, |id| {
                open.view.with_untracked(|v| v.as_ref().and_then(|v| v.file_name(id)))
            });
            let sentence = approval_sentence(lang, &named);
            // Where: the exact origin judged (scheme and port count), and the page's title.
            let origin = request
                .target_origin
                .clone()
                .or_else(|| request.target.as_ref().map(|t| t.url.clone()));
            let page_title = request.target.as_ref().map(|t| t.title.trim().to_owned()).filter(|t| !t.is_empty());
            let place = match &origin {
                Some(origin) => view! {
                    <span class="origin">{origin.clone()}</span>
                    {page_title.map(|title| view! { <span class="page-title">{title}</span> })}
                }
                .into_any(),
                None => view! { <span class="origin none">{t(Msg::ApprovalNoSite)}</span> }.into_any(),
            };
            let from: Vec<String> = request.taint.iter().map(|s| s.source.clone()).collect();
            let flags = request
                .flags
                .iter()
                .map(|f| {
                    let title = (*f == ApprovalFlag::TaintedInput && !from.is_empty()).then(|| from.join(", "));
                    view! { <li class="chip flag" data-flag=flag_name(*f) title=title>{icon(Icon::Warning)}{t(flag_label(*f))}</li> }
                })
                .collect_view();
            let has_flags = !request.flags.is_empty();
            let params = serde_json::to_string_pretty(&request.params).unwrap_or_default();
            let position = (count.get_untracked() > 1).then(|| {
                fill(lang, Msg::ApprovalPosition, &[("n", "1"), ("total", &count.get_untracked().to_string())])
            });
            // "Always allow" grants exactly the origin judged: a call without one has no such
            // choice.
            let for_site = request
                .target_origin
                .as_deref()
                .and_then(site_of)
                .map(|site| fill(lang, Msg::ApprovalForSite, &[("site", &site)]));
            let for_session = request.target_origin.is_some();
            let tool = request.tool.clone();
            let on_note_key = {
                let approval = approval.clone();
                move |event: ev::KeyboardEvent| {
                    if event.key() == "Enter" && !event.is_composing() {
                        event.prevent_default();
                        respond(engine, &approval, decline(note.get_untracked()));
                    }
                }
            };
            let answer = move |decision: ApprovalDecision| {
                let approval = approval.clone();
                move |_: ev::MouseEvent| {
                    menu.set(false);
                    let decision = match &decision {
                        ApprovalDecision::Decline { .. } => decline(note.get_untracked()),
                        other => other.clone(),
                    };
                    respond(engine, &approval, decision);
                }
            };
            view! {
                <section class="approval-card" role="dialog" aria-labelledby="approval-sentence" aria-describedby="approval-place">
                    <header>
                        <span class="approval-ask">{icon(Icon::Waiting)}{t(Msg::ApprovalAsk)}</span>
                        {position.map(|p| view! { <span class="approval-count">{p}</span> })}
                    </header>
                    <p class="approval-sentence" id="approval-sentence">{sentence}</p>
                    <p class="approval-site" id="approval-place">{icon(Icon::Site)}{place}</p>
                    {has_flags.then(|| view! { <ul class="flags">{flags}</ul> })}
                    <details class="approval-call">
                        <summary>{t(Msg::ApprovalCall)}</summary>
                        <p class="tool"><code>{tool}</code></p>
                        <pre class="params">{params}</pre>
                    </details>
                    <label class="field decline-field">
                        <span>{t(Msg::ApprovalNote)}</span>
                        <input type="text" class="decline-note" prop:value=move || note.get()
                            on:input=move |ev| note.set(event_target_value(&ev)) on:keydown=on_note_key/>
                    </label>
                    <div class="actions">
                        <button class="btn-primary" data-decision="accept" on:click=answer(ApprovalDecision::Accept)>
                            {t(Msg::ApprovalAllow)}<kbd>"Y"</kbd>
                        </button>
                        <button data-decision="decline" on:click=answer(ApprovalDecision::Decline { note: None })>
                            {t(Msg::ApprovalRefuse)}<kbd>"N"</kbd>
                        </button>
                        <Popover open=menu button_class="approval-more" label=t(Msg::ApprovalMore) glyph=Icon::More
                            panel_class="up end menu approval-menu" role="menu">
                            {for_session.then(|| view! {
                                <button type="button" role="menuitem" data-decision="accept_for_session" on:click=answer(ApprovalDecision::AcceptForSession)>
                                    <span>{t(Msg::ApprovalForSession)}</span><kbd>"S"</kbd>
                                </button>
                            })}
                            {for_site.map(|label| view! {
                                <button type="button" role="menuitem" data-decision="accept_for_site" on:click=answer(ApprovalDecision::AcceptForSite)>
                                    <span>{label}</span><kbd>"A"</kbd>
                                </button>
                            })}
                            <button type="button" role="menuitem" data-decision="cancel" on:click=answer(ApprovalDecision::Cancel)>
                                <span>{t(Msg::ApprovalStop)}</span><kbd>"Esc"</kbd>
                            </button>
                        </Popover>
                    </div>
                </section>
            }
        })
    }
}
