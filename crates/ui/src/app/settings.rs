//! The settings page: the connection form comes first while no model is configured; saving sends
//! `connection.save` and the list shows what the engine stored (keys are never shown back).

use leptos::prelude::*;
use panelot_protocol::ConnectionId;
use panelot_protocol::Op;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ConnectionDeleteParams;
use panelot_protocol::engine::ConnectionSaveParams;
use panelot_protocol::engine::ConnectionVerifyParams;
use panelot_protocol::engine::PermissionRuleInput;
use panelot_protocol::engine::PermissionVerdict;
use panelot_protocol::engine::PresetDeleteParams;
use panelot_protocol::engine::PresetSaveParams;
use panelot_protocol::engine::RuleAddParams;
use panelot_protocol::engine::RuleDeleteParams;
use panelot_protocol::engine::SettingsPatch;
use panelot_protocol::engine::SettingsUpdateParams;

use super::AppState;
use crate::composer::POLICIES;
use crate::composer::model_value;
use crate::composer::parse_model_value;
use crate::composer::parse_policy_value;
use crate::composer::policy_label;
use crate::composer::policy_value;
use crate::host;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::settings::ConnectionForm;
use crate::settings::ConnectionKind;
use crate::settings::EFFORTS;
use crate::settings::FormStatus;
use crate::settings::PresetEditor;
use crate::settings::PresetForm;
use crate::settings::SettingsScreen;
use crate::settings::TOOL_FAMILIES;
use crate::settings::effort_value;
use crate::settings::first_screen;
use crate::settings::model_options;
use crate::settings::parse_effort_value;
use crate::settings::preset_model_options;
use crate::settings::preset_summary;
use crate::settings::problem_text;

/// The options page.
#[component]
pub(super) fn SettingsPage(state: AppState) -> impl IntoView {
    let connections = move || {
        state.settings.with(|s| s.as_ref().map(|s| s.connections.clone()).unwrap_or_default())
    };
    let screen = move || first_screen(connections().len());
    let t = move |msg| i18n::text(state.lang.get(), msg);
    view! {
        <div class="settings">
            <h2>{move || t(Msg::Settings)}</h2>
            <Show when=move || screen() == SettingsScreen::ConnectionForm>
                <p class="first-run">{move || t(Msg::NoModelConfigured)}</p>
            </Show>
            <section>
                <h3>{move || t(Msg::Connections)}</h3>
                <ul class="connections">
                    {move || connections().into_iter().map(|c| {
                        let id = c.id.clone();
                        let delete = move |_| {
                            let connection_id = id.clone();
                            let _ = host::send(|submission_id| {
                                Op::ConnectionDelete(ConnectionDeleteParams { submission_id, connection_id })
                            });
                        };
                        let verify_id = c.id.clone();
                        let verify = move |_| {
                            let connection_id = verify_id.clone();
                            state.checks.update(|checks| {
                                checks.retain(|(id, _)| id != &connection_id);
                                checks.push((connection_id.clone(), None));
                            });
                            let _ = host::send(|submission_id| {
                                Op::ConnectionVerify(ConnectionVerifyParams { submission_id, connection_id, model: None })
                            });
                        };
                        let extras = [
                            (!c.header_names.is_empty()).then(|| c.header_names.join(", ")),
                            (!c.quirks.is_empty()).then(|| c.quirks.join(", ")),
                        ].into_iter().flatten().collect::<Vec<_>>().join(" · ");
                        let report_id = c.id.clone();
                        view! {
                            <li data-connection=c.id.to_string()>
                                {c.name}" — "{c.model_ids.join(", ")}" · "{c.base_url}
                                {(!extras.is_empty()).then(|| view! { <span class="extras">" · "{extras}</span> })}
                                <button type="button" class="verify" on:click=verify>{move || t(Msg::Verify)}</button>
                                <button type="button" on:click=delete>"×"</button>
                                <CheckReport state connection_id=report_id/>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <ConnectionFormView state=state/>
            </section>
            <ModelAndPolicy state=state/>
            <PermissionRules state=state/>
            <Presets state=state/>
            <section>
                <h3>{move || t(Msg::Language)}</h3>
                <select on:change=move |ev| state.lang.set(Lang::from_tag(&event_target_value(&ev)))>
                    <option value="en" selected=move || state.lang.get() == Lang::En>"English"</option>
                    <option value="zh-CN" selected=move || state.lang.get() == Lang::ZhCn>"简体中文"</option>
                </select>
            </section>
        </div>
    }
}

/// The result of the last check of a connection: "checking…", or what worked and what failed.
#[component]
fn CheckReport(state: AppState, connection_id: ConnectionId) -> impl IntoView {
    let check = Memo::new(move |_| {
        state.checks.with(|checks| {
            checks.iter().find(|(id, _)| id == &connection_id).map(|(_, report)| report.clone())
        })
    });
    move || {
        let lang = state.lang.get();
        let t = move |msg| i18n::text(lang, msg);
        let yes_no = move |ok: bool| t(if ok { Msg::Yes } else { Msg::No });
        match check.get()? {
            None => Some(
                view! { <p class="check-report" data-state="running">{t(Msg::Verifying)}</p> }
                    .into_any(),
            ),
            Some(report) => {
                let checks = i18n::format(
                    lang,
                    Msg::VerifyChecks,
                    &[
                        ("reachable", yes_no(report.reachable)),
                        ("key", yes_no(report.key_valid)),
                        ("streaming", yes_no(report.streaming)),
                        ("tools", yes_no(report.tool_use)),
                    ],
                );
                let verdict = match report.failure {
                    None => Msg::VerifyOk,
                    Some(ConnectionCheckFailure::InvalidKey) => Msg::VerifyInvalidKey,
                    Some(ConnectionCheckFailure::Unreachable) => Msg::VerifyUnreachable,
                    Some(ConnectionCheckFailure::NoModel) => Msg::VerifyNoModel,
                    Some(ConnectionCheckFailure::ProtocolMismatch) => Msg::VerifyProtocolMismatch,
                    Some(ConnectionCheckFailure::NoToolUse) => Msg::VerifyNoToolUse,
                };
                let state_name = if report.failure.is_none() { "ok" } else { "failed" };
                let models = report.models.map(|m| m.join(", "));
                Some(
                    view! {
                        <div class="check-report" data-state=state_name role="status">
                            <p class="verdict">{t(verdict)}</p>
                            <p class="checks">{checks}{report.model.map(|m| format!(" · {m}"))}</p>
                            {report.diagnosis.map(|d| view! { <p class="diagnosis">{d}</p> })}
                            {models.map(|m| view! { <p class="models">{m}</p> })}
                        </div>
                    }
                    .into_any(),
                )
            }
        }
    }
}

/// Permission rules: every stored one with its delete button, and a form to add one. The
/// engine checks the patterns and says what is wrong with a refused one.
#[component]
fn PermissionRules(state: AppState) -> impl IntoView {
    let t = move |msg| i18n::text(state.lang.get(), msg);
    let rules =
        move || state.settings.with(|s| s.as_ref().map(|s| s.rules.clone()).unwrap_or_default());
    let tool = RwSignal::new(String::new());
    let origin = RwSignal::new("*".to_owned());
    let verdict = RwSignal::new(PermissionVerdict::Ask);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let rule = PermissionRuleInput {
            tool: tool.get_untracked(),
            origin: origin.get_untracked(),
            verdict: verdict.get_untracked(),
        };
        let _ = host::send(|submission_id| Op::RuleAdd(RuleAddParams { submission_id, rule }));
        tool.set(String::new());
    };
    let verdicts = [
        (PermissionVerdict::Allow, "allow", Msg::RuleAllow),
        (PermissionVerdict::Ask, "ask", Msg::RuleAsk),
        (PermissionVerdict::Deny, "deny", Msg::RuleDeny),
    ];
    view! {
        <section class="rules">
            <h3>{move || t(Msg::PermissionRules)}</h3>
            <ul class="rule-list">
                {move || rules().into_iter().map(|rule| {
                    let id = rule.id.clone();
                    let delete = move |_| {
                        let rule_id = id.clone();
                        let _ = host::send(|submission_id| {
                            Op::RuleDelete(RuleDeleteParams { submission_id, rule_id })
                        });
                    };
                    let label = verdicts.iter().find(|(v, ..)| *v == rule.verdict).map(|(.., m)| *m);
                    view! {
                        <li data-rule=rule.id>
                            <strong>{move || label.map(t).unwrap_or_default()}</strong>" "
                            <code>{rule.tool}</code>" @ "<code>{rule.origin}</code>
                            <button type="button" class="delete-rule" on:click=delete>"×"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <form class="rule-form" on:submit=add>
                <input class="rule-tool" placeholder="click, tab_*, category:navigate, *"
                    prop:value=move || tool.get() on:input=move |ev| tool.set(event_target_value(&ev))/>
                <input class="rule-origin" placeholder="https://example.com, *.example.com, *"
                    prop:value=move || origin.get() on:input=move |ev| origin.set(event_target_value(&ev))/>
                <select class="rule-verdict" on:change=move |ev| {
                    let chosen = event_target_value(&ev);
                    if let Some((v, ..)) = verdicts.iter().find(|(_, name, _)| *name == chosen) {
                        verdict.set(*v);
                    }
                }>
                    {verdicts.into_iter().map(|(v, name, label)| view! {
                        <option value=name selected=move || verdict.get() == v>{move || t(label)}</option>
                    }).collect_view()}
                </select>
                <button type="submit" class="add-rule">{move || t(Msg::AddRule)}</button>
            </form>
        </section>
    }
}

/// The default model (any model of any connection) and the permission mode, each saved through
/// `settings.update` as soon as it changes.
#[component]
fn ModelAndPolicy(state: AppState) -> impl IntoView {
    let t = move |msg| i18n::text(state.lang.get(), msg);
    let models =
        move || state.settings.with(|s| model_options(s.iter().flat_map(|s| &s.connections)));
    let current_model = move || {
        state.settings.with(|s| {
            s.as_ref().and_then(|s| s.default_model.as_ref()).map(model_value).unwrap_or_default()
        })
    };
    let policy = move || state.settings.with(|s| s.as_ref().map(|s| s.permission_policy));
    let update = |patch: SettingsPatch| {
        let _ = host::send(|submission_id| {
            Op::SettingsUpdate(SettingsUpdateParams { submission_id, patch })
        });
    };
    let pick_model = move |ev: leptos::ev::Event| {
        if let Some(choice) = parse_model_value(&event_target_value(&ev)) {
            update(SettingsPatch { default_model: Some(choice), ..SettingsPatch::default() });
        }
    };
    let pick_policy = move |ev: leptos::ev::Event| {
        let chosen = parse_policy_value(&event_target_value(&ev));
        update(SettingsPatch { permission_policy: chosen, ..SettingsPatch::default() });
    };
    view! {
        <section class="model-and-policy">
            <label>{move || t(Msg::DefaultModel)}
                <select class="default-model" on:change=pick_model>
                    {move || models().into_iter().map(|(value, label)| {
                        let selected = value == current_model();
                        view! { <option value=value selected=selected>{label}</option> }
                    }).collect_view()}
                </select>
            </label>
            <label>{move || t(Msg::PermissionMode)}
                <select class="permission-mode" on:change=pick_policy>
                    {POLICIES.map(|p| view! {
                        <option value=policy_value(Some(p)) selected=move || policy() == Some(p)>{move || t(policy_label(p))}</option>
                    })}
                </select>
            </label>
        </section>
    }
}

#[component]
fn ConnectionFormView(state: AppState) -> impl IntoView {
    let form = RwSignal::new(ConnectionForm::new(ConnectionKind::default()));
    let problems = RwSignal::new(Vec::<String>::new());
    let saved = RwSignal::new(false);
    let t = move |msg| i18n::text(state.lang.get(), msg);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let lang = state.lang.get_untracked();
        match form.get_untracked().validate() {
            Ok(draft) => {
                if let Some(origin) = crate::settings::origin_of(&draft.base_url) {
                    host::request_host_access(&origin);
                }
                let connection = draft.to_input();
                let _ = host::send(|submission_id| {
                    Op::ConnectionSave(ConnectionSaveParams { submission_id, connection })
                });
                form.set(ConnectionForm::new(ConnectionKind::default()));
                problems.set(Vec::new());
                saved.set(true);
            }
            Err(found) => {
                saved.set(false);
                problems.set(
                    found
                        .into_iter()
                        .map(|(f, problem)| problem_text(lang, f.label(), problem))
                        .collect(),
                );
            }
        }
    };
    let quirk_names = move || {
        state.settings.with(|s| s.as_ref().map(|s| s.quirk_names.clone()).unwrap_or_default())
    };
    let kinds = ConnectionKind::ALL
        .into_iter()
        .map(|kind| view! { <option value=kind.value() selected=move || form.with(|f| f.kind == kind)>{move || t(kind.label())}</option> })
        .collect_view();
    view! {
        <form class="connection-form" on:submit=save>
            <label>{move || t(Msg::ConnectionKind)}
                <select on:change=move |ev| {
                    if let Some(kind) = ConnectionKind::from_value(&event_target_value(&ev)) {
                        form.update(|f| { f.kind = kind; f.base_url = kind.default_base_url().to_owned(); });
                    }
                }>{kinds}</select>
            </label>
            <label>{move || t(Msg::ConnectionName)}
                <input type="text" prop:value=move || form.with(|f| f.name.clone()) on:input=move |ev| form.update(|f| f.name = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::BaseUrl)}
                <input type="url" prop:value=move || form.with(|f| f.base_url.clone()) on:input=move |ev| form.update(|f| f.base_url = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::ApiKey)}
                <input type="password" autocomplete="off" prop:value=move || form.with(|f| f.api_key.clone()) on:input=move |ev| form.update(|f| f.api_key = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::DefaultModel)}
                <input type="text" prop:value=move || form.with(|f| f.default_model.clone()) on:input=move |ev| form.update(|f| f.default_model = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::CustomHeaders)}
                <textarea class="headers" rows="2" spellcheck="false" prop:value=move || form.with(|f| f.headers.clone()) on:input=move |ev| form.update(|f| f.headers = event_target_value(&ev))></textarea>
            </label>
            <fieldset class="quirks">
                <legend>{move || t(Msg::Quirks)}</legend>
                {move || quirk_names().into_iter().map(|name| {
                    let checked_name = name.clone();
                    let toggled = name.clone();
                    view! {
                        <label class="quirk">
                            <input type="checkbox" value=name.clone()
                                prop:checked=move || form.with(|f| f.quirks.contains(&checked_name))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    form.update(|f| {
                                        f.quirks.retain(|q| q != &toggled);
                                        if on { f.quirks.push(toggled.clone()); }
                                    });
                                }/>
                            {name}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <ul class="problems" role="alert">{move || problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
            <Show when=move || saved.get()><p class="saved">{move || t(Msg::Saved)}</p></Show>
            <button type="submit">{move || t(Msg::Save)}</button>
        </form>
    }
}

/// Model presets: each stored one with Edit and Delete, and a form that adds one or edits the
/// one chosen. The form waits for the engine's answer: a refusal shows next to it with what was
/// typed kept; a save empties it. The form is no `<form>`: Enter in a box must not submit it.
#[component]
fn Presets(state: AppState) -> impl IntoView {
    let editor = state.preset_editor;
    let t = move |msg| i18n::text(state.lang.get(), msg);
    let list = move || {
        let lang = state.lang.get();
        let (presets, connections) = state
            .settings
            .with(|s| s.as_ref().map(|s| (s.presets.clone(), s.connections.clone())))
            .unwrap_or_default();
        presets
            .into_iter()
            .map(|stored| {
                let (model, policy) = preset_summary(&stored.preset, &connections);
                let policy = policy.map(|m| format!(" · {}", i18n::text(lang, m)));
                let id = stored.id.clone();
                let edit = move |_| {
                    let opened = state.settings.with_untracked(|s| {
                        s.as_ref().and_then(|s| PresetEditor::edit(&s.presets, id.as_str()))
                    });
                    if let Some(opened) = opened {
                        editor.set(opened);
                    }
                };
                let id = stored.id.clone();
                let delete = move |_| {
                    let preset_id = id.clone();
                    if editor.with_untracked(|e| e.editing.as_ref() == Some(&preset_id)) {
                        editor.set(PresetEditor::default());
                    }
                    let _ = host::send(|submission_id| {
                        Op::PresetDelete(PresetDeleteParams { submission_id, preset_id })
                    });
                };
                view! {
                    <li data-preset=stored.id.as_str().to_owned()>
                        <strong>{stored.preset.name}</strong>" — "{model}{policy}" "
                        <button type="button" class="edit-preset" on:click=edit>{i18n::text(lang, Msg::Edit)}</button>
                        <button type="button" class="delete-preset" aria-label=i18n::text(lang, Msg::Delete) on:click=delete>"×"</button>
                    </li>
                }
            })
            .collect_view()
    };
    let save = move |_| {
        let mut shown = editor.get_untracked();
        if let Some(preset) = shown.submit() {
            let preset_id = shown.editing.clone();
            let sent = host::send(|submission_id| {
                Op::PresetSave(PresetSaveParams { submission_id, preset_id, preset })
            });
            if let Ok(submission_id) = sent {
                shown.status = FormStatus::Waiting(submission_id);
            }
        }
        editor.set(shown);
    };
    // Rebuilt only when the connections or the chosen model change, not at each keystroke.
    let models = Memo::new(move |_| {
        let current = editor.with(|e| e.form.model.clone());
        state
            .settings
            .with(|s| preset_model_options(s.iter().flat_map(|s| &s.connections), &current))
    });
    let policies = std::iter::once(None).chain(POLICIES.map(Some)).map(|p| view! {
        <option value=policy_value(p) prop:selected=move || editor.with(|e| e.form.policy == p)>
            {move || t(p.map_or(Msg::Inherit, policy_label))}
        </option>
    }).collect_view();
    let efforts = std::iter::once((None, Msg::ProviderDefault))
        .chain(EFFORTS.map(|(e, _, label)| (Some(e), label)))
        .map(|(e, label)| view! {
            <option value=effort_value(e) prop:selected=move || editor.with(|ed| ed.form.reasoning_effort == e)>
                {move || t(label)}
            </option>
        })
        .collect_view();
    let families = TOOL_FAMILIES.map(|(level, name, label)| view! {
        <label>
            <input type="checkbox" name=name prop:checked=move || editor.with(|e| e.form.has_tool(level))
                on:change=move |ev| editor.update(|e| e.form.set_tool(level, event_target_checked(&ev)))/>
            {move || t(label)}
        </label>
    });
    let inherit = move || editor.with(|e| e.form.tool_levels.is_none());
    let notes = Memo::new(move |_| editor.with(|e| e.notes(state.lang.get())));
    view! {
        <section class="presets">
            <h3>{move || t(Msg::Presets)}</h3>
            <ul class="preset-list">{list}</ul>
            <div class="preset-form">
                {preset_text(state, "name", Msg::ConnectionName, "text", |f| &f.name, |f| &mut f.name)}
                <label>{move || t(Msg::PresetModel)}
                    <select name="model" on:change=move |ev| editor.update(|e| e.form.model = event_target_value(&ev))>
                        <option value="" prop:selected=move || editor.with(|e| e.form.model.is_empty())>{move || t(Msg::ChooseModel)}</option>
                        {move || models.get().into_iter().map(|(value, label)| {
                            let chosen = value.clone();
                            view! { <option value=value prop:selected=move || editor.with(|e| e.form.model == chosen)>{label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>{move || t(Msg::Instructions)}
                    <textarea name="instructions" rows="3" prop:value=move || editor.with(|e| e.form.instructions.clone())
                        on:input=move |ev| editor.update(|e| e.form.instructions = event_target_value(&ev))></textarea>
                </label>
                <label>{move || t(Msg::PermissionMode)}
                    <select name="policy" on:change=move |ev| editor.update(|e| e.form.policy = parse_policy_value(&event_target_value(&ev)))>
                        {policies}
                    </select>
                </label>
                <fieldset class="preset-tools">
                    <legend>{move || t(Msg::ToolFamilies)}</legend>
                    <label>
                        <input type="checkbox" name="default-tools" prop:checked=inherit
                            on:change=move |ev| editor.update(|e| e.form.keep_default_tools(event_target_checked(&ev)))/>
                        {move || t(Msg::DefaultToolFamilies)}
                    </label>
                    // While the default is kept, the families show what it means.
                    <fieldset class="families" disabled=inherit>{families}</fieldset>
                </fieldset>
                {preset_text(state, "temperature", Msg::Temperature, "decimal", |f| &f.temperature, |f| &mut f.temperature)}
                {preset_text(state, "max-tokens", Msg::MaxTokens, "numeric", |f| &f.max_tokens, |f| &mut f.max_tokens)}
                <label>{move || t(Msg::ReasoningEffort)}
                    <select name="effort" on:change=move |ev| editor.update(|e| e.form.reasoning_effort = parse_effort_value(&event_target_value(&ev)))>
                        {efforts}
                    </select>
                </label>
                <ul class="problems" role="alert">{move || notes.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                <button type="button" class="save-preset" on:click=save>{move || t(editor.with(PresetEditor::save_label))}</button>
                <Show when=move || editor.with(|e| e.editing.is_some())>
                    <button type="button" class="cancel-preset" on:click=move |_| editor.set(PresetEditor::default())>{move || t(Msg::Cancel)}</button>
                </Show>
            </div>
        </section>
    }
}

/// A labelled one-line text box of the preset form showing the field `get` reads and `set`
/// writes. Numbers are text boxes too (`inputmode` brings up the number keyboard), so the
/// browser never blocks a save the validation would explain better.
fn preset_text(
    state: AppState,
    name: &'static str,
    label: Msg,
    inputmode: &'static str,
    get: fn(&PresetForm) -> &String,
    set: fn(&mut PresetForm) -> &mut String,
) -> impl IntoView {
    let editor = state.preset_editor;
    view! {
        <label>{move || i18n::text(state.lang.get(), label)}
            <input type="text" name=name inputmode=inputmode
                prop:value=move || editor.with(|e| get(&e.form).clone())
                on:input=move |ev| editor.update(|e| *set(&mut e.form) = event_target_value(&ev))/>
        </label>
    }
}
