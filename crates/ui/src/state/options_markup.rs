//! The options page's other sections as HTML text: the defaults (model and permission mode),
//! the language, the model presets (list and form) and the permission rules. For why text and
//! not Leptos views, and how the sections find their controls, see
//! [`connection_markup`](super::connection_markup).

use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::Language;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PermissionRuleView;
use panelot_protocol::engine::PermissionVerdict;
use panelot_protocol::engine::PresetView;

use super::choices::POLICIES;
use super::choices::policy_label;
use super::choices::policy_value;
use super::connection_markup::icon_html;
use super::language::LANGUAGES;
use super::language::language_label;
use super::language::language_value;
use super::preset_form::EFFORTS;
use super::preset_form::PresetForm;
use super::preset_form::TOOL_FAMILIES;
use super::preset_form::effort_value;
use super::preset_form::preset_summary;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown::escape_html;

/// `<option>`s of `(value, label)` pairs, the one whose value is `chosen` selected.
fn options<'a>(items: impl IntoIterator<Item = (&'a str, String)>, chosen: &str) -> String {
    items
        .into_iter()
        .map(|(value, label)| {
            let selected = if value == chosen { " selected" } else { "" };
            format!(
                "<option value=\"{}\"{selected}>{}</option>",
                escape_html(value),
                escape_html(&label)
            )
        })
        .collect()
}

/// A labelled select (`class` and `name` for the handlers and tests).
fn select(label: &str, class: &str, name: &str, options: &str) -> String {
    format!(
        "<label class=\"field\"><span>{}</span><select class=\"{class}\" name=\"{name}\">{options}</select></label>",
        escape_html(label)
    )
}

/// The default model (`models`: `(value, label)`, `current` the chosen value, empty for none)
/// and the permission mode.
pub fn defaults_html(
    lang: Lang,
    models: &[(String, String)],
    current: &str,
    policy: Option<PermissionPolicy>,
) -> String {
    let t = |msg| i18n::text(lang, msg);
    let none = if current.is_empty() {
        format!("<option value=\"\" selected>{}</option>", escape_html(t(Msg::ChooseModel)))
    } else {
        String::new()
    };
    let models = options(models.iter().map(|(v, l)| (v.as_str(), l.clone())), current);
    let policies = options(
        POLICIES.map(|p| (policy_value(Some(p)), t(policy_label(p)).to_owned())),
        policy_value(policy),
    );
    format!(
        "<h2>{}</h2><div class=\"field-row\">{}{}</div>",
        escape_html(t(Msg::Defaults)),
        select(t(Msg::DefaultModel), "default-model", "default-model", &format!("{none}{models}")),
        select(t(Msg::PermissionMode), "permission-mode", "permission-mode", &policies),
    )
}

/// The language choice (`chosen`, once the settings are known), for a browser speaking
/// `system`.
pub fn language_html(lang: Lang, system: Lang, chosen: Option<Language>) -> String {
    let t = |msg| i18n::text(lang, msg);
    let chosen = chosen.map_or("", language_value);
    let choices =
        options(LANGUAGES.map(|l| (language_value(l), language_label(l, lang, system))), chosen);
    format!(
        "<h2>{0}</h2><label class=\"field\"><span class=\"visually-hidden\">{0}</span>\
         <select class=\"language-choice\" name=\"language\">{choices}</select>\
         <span class=\"hint\">{1}</span></label>",
        escape_html(t(Msg::Language)),
        escape_html(t(Msg::LanguageHint)),
    )
}

/// The switch that lets the agent open pages beside the chat (`sidebar_open`); off unless the
/// user turns it on. `on` is `None` before the settings arrived.
pub fn agent_opens_html(lang: Lang, on: Option<bool>) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let checked = if on == Some(true) { " checked" } else { "" };
    let disabled = if on.is_none() { " disabled" } else { "" };
    format!(
        "<h2>{}</h2><div class=\"switch-row\"><label class=\"check\"><input type=\"checkbox\" \
         name=\"agent-open-tools\"{checked}{disabled}><span>{}</span></label>\
         <span class=\"hint\">{}</span></div>",
        t(Msg::AgentOpensTitle),
        t(Msg::AgentOpensLabel),
        t(Msg::AgentOpensHint),
    )
}

/// The stored presets, each with Edit and Delete.
pub fn preset_list_html(
    lang: Lang,
    presets: &[PresetView],
    connections: &[ConnectionView],
) -> String {
    let delete = escape_html(i18n::text(lang, Msg::Delete));
    presets
        .iter()
        .map(|stored| {
            let (model, policy) = preset_summary(&stored.preset, connections);
            let policy = policy.map(|m| format!(" · {}", i18n::text(lang, m))).unwrap_or_default();
            let id = escape_html(stored.id.as_str());
            format!(
                "<li data-preset=\"{id}\"><strong>{}</strong> — {}{}\
                 <button type=\"button\" class=\"btn-sm edit-preset\" data-act=\"edit\" data-id=\"{id}\">{}</button>\
                 <button type=\"button\" class=\"btn-icon btn-sm btn-ghost delete-preset\" data-act=\"delete\" \
                 data-id=\"{id}\" aria-label=\"{delete}\" title=\"{delete}\">{}</button></li>",
                escape_html(&stored.preset.name),
                escape_html(&model),
                escape_html(&policy),
                escape_html(i18n::text(lang, Msg::Edit)),
                icon_html(Icon::Trash),
            )
        })
        .collect()
}

/// The preset form's fields showing `form` (`models`: the model selector's `(value, label)`).
pub fn preset_fields_html(lang: Lang, form: &PresetForm, models: &[(String, String)]) -> String {
    let t = |msg| i18n::text(lang, msg);
    let text_box = |name: &str, label: Msg, inputmode: &str, value: &str| {
        format!(
            "<label class=\"field\"><span>{}</span><input type=\"text\" name=\"{name}\" \
             inputmode=\"{inputmode}\" value=\"{}\"></label>",
            escape_html(t(label)),
            escape_html(value)
        )
    };
    let choose = format!(
        "<option value=\"\"{}>{}</option>",
        if form.model.is_empty() { " selected" } else { "" },
        escape_html(t(Msg::ChooseModel))
    );
    let models = options(models.iter().map(|(v, l)| (v.as_str(), l.clone())), &form.model);
    let policies = options(
        std::iter::once(("", t(Msg::Inherit).to_owned()))
            .chain(POLICIES.map(|p| (policy_value(Some(p)), t(policy_label(p)).to_owned()))),
        policy_value(form.policy),
    );
    let inherit = form.tool_levels.is_none();
    let families: String = TOOL_FAMILIES
        .iter()
        .map(|(level, name, label)| {
            format!(
                "<label class=\"check\"><input type=\"checkbox\" name=\"{name}\"{}>{}</label>",
                if form.has_tool(*level) { " checked" } else { "" },
                escape_html(t(*label))
            )
        })
        .collect();
    let efforts = options(
        std::iter::once(("", t(Msg::ProviderDefault).to_owned()))
            .chain(EFFORTS.map(|(_, value, label)| (value, t(label).to_owned()))),
        effort_value(form.reasoning_effort),
    );
    format!(
        "{name}{model}<label class=\"field\"><span>{instructions_label}</span>\
         <textarea name=\"instructions\" rows=\"3\">{instructions}</textarea></label>{policy}\
         <fieldset class=\"preset-tools\"><legend>{families_label}</legend>\
         <label class=\"check\"><input type=\"checkbox\" name=\"default-tools\"{inherit_checked}>{default_families}</label>\
         <fieldset class=\"families\"{disabled}>{families}</fieldset></fieldset>\
         {temperature}{max_tokens}{effort}",
        name = text_box("name", Msg::ConnectionName, "text", &form.name),
        model = select(t(Msg::PresetModel), "preset-model", "model", &format!("{choose}{models}")),
        instructions_label = escape_html(t(Msg::Instructions)),
        instructions = escape_html(&form.instructions),
        policy = select(t(Msg::PermissionMode), "preset-policy", "policy", &policies),
        families_label = escape_html(t(Msg::ToolFamilies)),
        inherit_checked = if inherit { " checked" } else { "" },
        default_families = escape_html(t(Msg::DefaultToolFamilies)),
        disabled = if inherit { " disabled" } else { "" },
        temperature = text_box("temperature", Msg::Temperature, "decimal", &form.temperature),
        max_tokens = text_box("max-tokens", Msg::MaxTokens, "numeric", &form.max_tokens),
        effort = select(t(Msg::ReasoningEffort), "preset-effort", "effort", &efforts),
    )
}

/// The preset form's buttons: save ("Add preset", or "Save" while editing) and, while editing,
/// cancel.
pub fn preset_actions_html(lang: Lang, save: Msg, editing: bool) -> String {
    let cancel = if editing {
        format!(
            "<button type=\"button\" class=\"cancel-preset\" data-act=\"cancel\">{}</button>",
            escape_html(i18n::text(lang, Msg::Cancel))
        )
    } else {
        String::new()
    };
    format!(
        "<button type=\"button\" class=\"save-preset\" data-act=\"save\">{}</button>{cancel}",
        escape_html(i18n::text(lang, save))
    )
}

/// Verdicts of a rule with their `<option>` values and labels.
pub const VERDICTS: [(PermissionVerdict, &str, Msg); 3] = [
    (PermissionVerdict::Allow, "allow", Msg::RuleAllow),
    (PermissionVerdict::Ask, "ask", Msg::RuleAsk),
    (PermissionVerdict::Deny, "deny", Msg::RuleDeny),
];

/// The tool families a rule can name (`category:…`), as the gatekeeper spells them, in words.
const CATEGORIES: [(&str, Msg); 10] = [
    ("navigate", Msg::CategoryNavigate),
    ("organize", Msg::CategoryOrganize),
    ("click", Msg::CategoryClick),
    ("fill", Msg::CategoryFill),
    ("eval", Msg::CategoryEval),
    ("download", Msg::CategoryDownload),
    ("upload", Msg::CategoryUpload),
    ("interact", Msg::CategoryInteract),
    ("memory", Msg::CategoryMemory),
    ("mcp", Msg::CategoryMcp),
];

/// What a rule's tool pattern covers, in words: every action, a family, a tool's title, or the
/// tools starting with a prefix. A pattern the engine would not have stored is shown as it is.
fn rule_action_words(lang: Lang, pattern: &str) -> String {
    if pattern == "*" {
        return i18n::text(lang, Msg::RuleAnyAction).to_owned();
    }
    if let Some(name) = pattern.strip_prefix("category:") {
        return CATEGORIES
            .iter()
            .find(|(known, _)| *known == name)
            .map_or_else(|| pattern.to_owned(), |(_, msg)| i18n::text(lang, *msg).to_owned());
    }
    match pattern.strip_suffix('*') {
        Some(prefix) => i18n::format(lang, Msg::RuleToolsStarting, &[("prefix", prefix)]),
        None => i18n::tool_title(lang, pattern),
    }
}

/// Where a rule applies, in words.
fn rule_site_words(lang: Lang, origin: &str) -> String {
    match origin {
        "*" => i18n::text(lang, Msg::RuleEverySite).to_owned(),
        _ => i18n::format(lang, Msg::RuleOnSite, &[("origin", origin)]),
    }
}

/// The stored rules, each in words ("Deny Run JavaScript on every site") with its delete
/// button; the patterns as stored are the line's tooltip.
pub fn rule_list_html(lang: Lang, rules: &[PermissionRuleView]) -> String {
    let delete = escape_html(i18n::text(lang, Msg::Delete));
    rules
        .iter()
        .map(|rule| {
            let verdict = VERDICTS
                .iter()
                .find(|(v, ..)| *v == rule.verdict)
                .map_or("", |(.., m)| i18n::text(lang, *m));
            let id = escape_html(&rule.id);
            format!(
                "<li data-rule=\"{id}\" title=\"{} @ {}\"><strong>{}</strong> \
                 <span class=\"rule-what\">{}</span> <span class=\"rule-where\">{}</span>\
                 <button type=\"button\" class=\"btn-icon btn-sm btn-ghost delete-rule\" data-act=\"delete\" \
                 data-id=\"{id}\" aria-label=\"{delete}\" title=\"{delete}\">{}</button></li>",
                escape_html(&rule.tool),
                escape_html(&rule.origin),
                escape_html(verdict),
                escape_html(&rule_action_words(lang, &rule.tool)),
                escape_html(&rule_site_words(lang, &rule.origin)),
                icon_html(Icon::Trash),
            )
        })
        .collect()
}

/// The form adding a rule: each box with its label (the action box starts empty, the site on
/// every site, the verdict on "ask").
pub fn rule_form_html(lang: Lang) -> String {
    let verdicts = options(
        VERDICTS.map(|(_, value, label)| (value, i18n::text(lang, label).to_owned())),
        "ask",
    );
    let label = |msg| escape_html(i18n::text(lang, msg));
    format!(
        "<label class=\"rule-field\"><span>{}</span><input class=\"rule-tool\" name=\"tool\" \
         placeholder=\"click, category:fill, *\" title=\"{}\"></label>\
         <label class=\"rule-field\"><span>{}</span><input class=\"rule-origin\" name=\"origin\" value=\"*\" \
         placeholder=\"https://example.com, *.example.com, *\"></label>\
         <label class=\"rule-field rule-field-verdict\"><span>{}</span>\
         <select class=\"rule-verdict\" name=\"verdict\">{verdicts}</select></label>\
         <button type=\"submit\" class=\"add-rule\">{}</button>",
        label(Msg::RuleWhat),
        label(Msg::RuleWhatHint),
        label(Msg::RuleWhere),
        label(Msg::RuleVerdictLabel),
        label(Msg::AddRule)
    )
}

#[cfg(test)]
#[path = "options_markup_tests.rs"]
mod tests;
