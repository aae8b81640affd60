//! The options page's permission rules: every stored one with its delete button, and a form to
//! add one. The engine checks the patterns and says what is wrong with a refused one.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::PermissionRuleInput;
use panelot_protocol::engine::PermissionVerdict;
use panelot_protocol::engine::RuleAddParams;
use panelot_protocol::engine::RuleDeleteParams;

use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n::Msg;

/// Permission rules: every stored one with its delete button, and a form to add one. The
/// engine checks the patterns and says what is wrong with a refused one.
#[component]
pub(crate) fn RulesSection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let t = move |msg| page.text(msg);
    let rules =
        move || settings.view.with(|s| s.as_ref().map(|s| s.rules.clone()).unwrap_or_default());
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
        let _ = engine.send(|submission_id| Op::RuleAdd(RuleAddParams { submission_id, rule }));
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
                        let _ = engine.send(|submission_id| {
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
