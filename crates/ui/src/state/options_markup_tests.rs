//! Tests of the options page's markup: what each section shows, with outside text escaped.

use panelot_protocol::ConnectionId;
use panelot_protocol::ModelId;
use panelot_protocol::PresetId;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::ModelPreset;
use panelot_protocol::engine::PresetParams;
use panelot_protocol::engine::RuleAuthor;
use panelot_protocol::engine::ToolLevel;
use pretty_assertions::assert_eq;

use super::*;

#[test]
fn defaults_and_language() {
    let models = vec![("c-1/m".to_owned(), "m · <Home>".to_owned())];
    let html = defaults_html(Lang::En, &models, "", Some(PermissionPolicy::Auto));
    assert!(html.contains("<option value=\"\" selected>Choose a model</option><option value=\"c-1/m\">m · &lt;Home&gt;</option>"), "{html}");
    assert!(html.contains("<option value=\"auto\" selected>"), "{html}");
    let chosen = defaults_html(Lang::En, &models, "c-1/m", None);
    assert!(
        chosen.contains("<option value=\"c-1/m\" selected>") && !chosen.contains("Choose a model"),
        "{chosen}"
    );
    let html = language_html(Lang::ZhCn, Lang::En, Some(Language::SimplifiedChinese));
    assert!(html.contains("<option value=\"zh-CN\" selected>简体中文</option>"), "{html}");
    assert!(html.contains("<option value=\"system\">跟随浏览器（English）</option>"), "{html}");
}

fn preset(name: &str) -> PresetView {
    PresetView {
        id: PresetId::new("p-1").unwrap(),
        preset: ModelPreset {
            name: name.to_owned(),
            model: ModelChoice {
                connection_id: ConnectionId::new("c-1").unwrap(),
                model_id: ModelId::new("m").unwrap(),
            },
            system_prompt: None,
            permission_policy: Some(PermissionPolicy::Always),
            enabled_tool_levels: None,
            params: PresetParams::default(),
        },
    }
}

#[test]
fn presets_list_and_form() {
    let html = preset_list_html(Lang::En, &[preset("French <fr>")], &[]);
    assert!(html.starts_with("<li data-preset=\"p-1\"><strong>French &lt;fr&gt;</strong> — m · c-1 · Ask before every action"), "{html}");
    assert!(
        html.contains("data-act=\"edit\" data-id=\"p-1\"")
            && html.contains("data-act=\"delete\" data-id=\"p-1\""),
        "{html}"
    );
    let mut form = PresetForm { name: "A\"b".to_owned(), ..PresetForm::default() };
    let models = vec![("c-1/m".to_owned(), "m · Home".to_owned())];
    let html = preset_fields_html(Lang::En, &form, &models);
    for part in [
        "name=\"name\" inputmode=\"text\" value=\"A&quot;b\"",
        "<option value=\"\" selected>Choose a model</option>",
        "name=\"default-tools\" checked>",
        "<fieldset class=\"families\" disabled>",
        "name=\"tool-l0\" checked>",
        "name=\"tool-l2\">",
    ] {
        assert!(html.contains(part), "{part} not in {html}");
    }
    form.keep_default_tools(false);
    form.set_tool(ToolLevel::L2, true);
    let html = preset_fields_html(Lang::En, &form, &models);
    assert!(
        html.contains("<fieldset class=\"families\">")
            && html.contains("name=\"tool-l2\" checked>"),
        "{html}"
    );
    assert_eq!(
        preset_actions_html(Lang::En, Msg::AddPreset, false),
        "<button type=\"button\" class=\"save-preset\" data-act=\"save\">Add preset</button>"
    );
    assert!(preset_actions_html(Lang::En, Msg::Save, true).contains("class=\"cancel-preset\""));
}

#[test]
fn rules_list_and_form() {
    let rule = PermissionRuleView {
        id: "r-1".to_owned(),
        tool: "click".to_owned(),
        origin: "*.example.com".to_owned(),
        verdict: PermissionVerdict::Deny,
        source: RuleAuthor::User,
        created_at_ms: 0,
    };
    assert_eq!(
        rule_list_html(Lang::En, std::slice::from_ref(&rule)),
        format!(
            "<li data-rule=\"r-1\" title=\"click @ *.example.com\"><strong>Deny</strong> \
             <span class=\"rule-what\">Click</span> <span class=\"rule-where\">on *.example.com</span>\
             <button type=\"button\" class=\"btn-icon btn-sm btn-ghost delete-rule\" data-act=\"delete\" \
             data-id=\"r-1\" aria-label=\"Delete\" title=\"Delete\">{}</button></li>",
            icon_html(Icon::Trash)
        )
    );
    // Each kind of pattern in words; one the engine would not store, as it is.
    let words = |tool: &str, origin: &str, lang: Lang| {
        let rule =
            PermissionRuleView { tool: tool.to_owned(), origin: origin.to_owned(), ..rule.clone() };
        rule_list_html(lang, &[rule])
    };
    assert!(
        words("*", "*", Lang::En)
            .contains("Every action</span> <span class=\"rule-where\">on every site<")
    );
    assert!(words("category:fill", "*", Lang::En).contains(">Typing, choosing and key presses<"));
    assert!(words("category:nope", "*", Lang::En).contains(">category:nope<"));
    assert!(words("tab_*", "*", Lang::En).contains(">Tools whose name starts with tab_<"));
    assert!(words("run_javascript", "*", Lang::ZhCn).contains("在所有网站"));
    assert!(
        words("<b>", "<i>", Lang::En).contains("&lt;b&gt;")
            && !words("<b>", "<i>", Lang::En).contains("<i>")
    );
    let form = rule_form_html(Lang::En);
    assert!(
        form.contains("<option value=\"ask\" selected>Ask</option>")
            && form.contains("class=\"add-rule\"")
            && form.contains("<span>Action</span><input class=\"rule-tool\""),
        "{form}"
    );
}

#[test]
fn the_agent_opens_switch_is_off_until_turned_on_and_waits_for_the_settings() {
    let off = agent_opens_html(Lang::En, Some(false));
    assert!(off.contains("name=\"agent-open-tools\">") && !off.contains(" checked"), "{off}");
    assert!(off.contains("Let the agent open web pages beside the chat"));
    assert!(agent_opens_html(Lang::En, Some(true)).contains(" checked"));
    assert!(agent_opens_html(Lang::En, None).contains(" disabled"));
    assert!(agent_opens_html(Lang::ZhCn, Some(false)).contains("允许智能体在聊天旁打开网页"));
}
