//! The options page's permission rules: every stored one with its delete button, and a form to
//! add one. The engine checks the patterns and says what is wrong with a refused one. The
//! markup is text from `state::options_markup`; the form's boxes are read when it is sent.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::PermissionRuleInput;
use panelot_protocol::engine::PermissionVerdict;
use panelot_protocol::engine::RuleAddParams;
use panelot_protocol::engine::RuleDeleteParams;

use super::events::closest_target;
use super::events::target_element;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n::Msg;
use crate::state::options_markup::VERDICTS;
use crate::state::options_markup::rule_form_html;
use crate::state::options_markup::rule_list_html;

/// Permission rules: the stored ones and the form that adds one.
#[component]
pub(crate) fn RulesSection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let send = move |build: Box<dyn FnOnce(SubmissionId) -> Op>| {
        let _ = engine.send(build);
    };
    let list = move || {
        let lang = page.lang.get();
        settings.view.with(|s| {
            rule_list_html(lang, s.as_ref().map(|s| s.rules.as_slice()).unwrap_or_default())
        })
    };
    let delete = move |ev: leptos::ev::MouseEvent| {
        let rule_id =
            closest_target(&ev, "[data-act=delete]").and_then(|b| b.get_attribute("data-id"));
        if let Some(rule_id) = rule_id {
            send(Box::new(|submission_id| {
                Op::RuleDelete(RuleDeleteParams { submission_id, rule_id })
            }));
        }
    };
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(form) = target_element(&ev) else {
            return;
        };
        // The form's boxes as they are (an `<input>` and a `<select>` alike have a `value`).
        let field = |selector: &str| form.query_selector(selector).ok().flatten();
        let value = |el: &web_sys::Element| {
            js_sys::Reflect::get(el, &"value".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        let (Some(tool), Some(origin), Some(verdict)) =
            (field(".rule-tool"), field(".rule-origin"), field(".rule-verdict"))
        else {
            return;
        };
        let verdict = value(&verdict);
        let verdict = VERDICTS
            .iter()
            .find(|(_, name, _)| *name == verdict)
            .map_or(PermissionVerdict::Ask, |(v, ..)| *v);
        let rule = PermissionRuleInput { tool: value(&tool), origin: value(&origin), verdict };
        send(Box::new(|submission_id| Op::RuleAdd(RuleAddParams { submission_id, rule })));
        let _ = js_sys::Reflect::set(&tool, &"value".into(), &"".into());
    };
    view! {
        <section class="rules">
            <h2>{page.tr(Msg::PermissionRules)}</h2>
            <ul class="rule-list" inner_html=list on:click=delete></ul>
            <form class="rule-form" inner_html=move || rule_form_html(page.lang.get()) on:submit=add></form>
        </section>
    }
}
