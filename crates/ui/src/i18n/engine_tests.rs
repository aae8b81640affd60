//! Tests of tool titles and of the engine's and providers' English in the page's language. The
//! English texts here are written as `panelot-core` and `panelot-providers` write them.

use pretty_assertions::assert_eq;

use super::*;

#[track_caller]
fn zh(text: &str) -> String {
    engine_text(Lang::ZhCn, text)
}

#[test]
fn tool_titles() {
    assert_eq!(tool_title(Lang::ZhCn, "read_page"), "读取页面");
    assert_eq!(tool_title(Lang::En, "read_page"), "Read the page");
    // The engine's card label is the name with spaces.
    assert_eq!(tool_title(Lang::ZhCn, "select option"), "选择选项");
    assert_eq!(tool_title(Lang::ZhCn, "mcp__github__create_issue"), "create_issue（github）");
    assert_eq!(tool_title(Lang::En, "mcp__github__create_issue"), "create_issue (github)");
    assert_eq!(tool_title(Lang::ZhCn, "some_new_tool"), "some_new_tool");
    let names: Vec<&str> = TOOLS.iter().map(|(name, _)| *name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "a tool listed twice");
}

#[test]
fn engine_refusals_and_notes() {
    assert_eq!(zh("the message is empty"), "消息为空");
    assert_eq!(zh("connection c-12 does not exist"), "连接 c-12 不存在");
    assert_eq!(zh("node n-3 is not in thread t-9"), "节点 n-3 不在对话 t-9 中");
    assert_eq!(
        zh("32 messages are already waiting in this thread"),
        "此对话中已有 32 条消息在等待"
    );
    assert_eq!(
        zh("the rule is not valid: unknown category \"fly\""),
        "规则无效：unknown category \"fly\""
    );
    assert_eq!(
        zh("Denied by the user's permissions: a rule denies run_javascript. Do not retry it."),
        "被用户的权限设置拒绝：a rule denies run_javascript。"
    );
    // A nested message is translated too.
    assert_eq!(zh("The turn stopped: nothing is running"), "本轮已停止：没有正在运行的任务");
    // English stays English; an unknown text stays as it came.
    assert_eq!(engine_text(Lang::En, "the message is empty"), "the message is empty");
    assert_eq!(zh("something the UI has never seen"), "something the UI has never seen");
    assert_eq!(zh("the message is empty, really"), "the message is empty, really");
}

#[test]
fn provider_errors_sentence_by_sentence() {
    assert_eq!(
        zh(
            "Work proxy: the server rejected the API key (HTTP 401). Check the connection's API key in Settings."
        ),
        "Work proxy：服务器拒绝了 API 密钥（HTTP 401）。请在设置中检查该连接的 API 密钥。"
    );
    assert_eq!(
        zh(
            "Local: cannot reach the server. Check that the server is running and that the base URL (http://127.0.0.1:9/v1) is right."
        ),
        "Local：无法连接服务器。请确认服务器正在运行，且 Base URL（http://127.0.0.1:9/v1）正确。"
    );
    assert_eq!(
        zh(
            "Proxy: the proxy rejected the API key (a LiteLLM proxy without a key database accepts only its master key) (HTTP 400). Check the connection's API key in Settings. The server said: “No connected db.”"
        ),
        "Proxy：代理拒绝了 API 密钥（没有密钥数据库的 LiteLLM 代理只接受其主密钥）（HTTP 400）。请在设置中检查该连接的 API 密钥。服务器返回：“No connected db.”"
    );
    assert_eq!(
        zh("A: the provider is overloaded (reported while streaming). Try again in a moment."),
        "A：服务商负载过高（流式输出时报告）。请稍后重试。"
    );
    // A retry's message has no advice and no period.
    assert_eq!(zh("an: the response was empty"), "an：响应为空");
    // One unknown sentence keeps the whole text in English.
    let mixed = "A: the server rejected the API key (HTTP 401). Call your administrator.";
    assert_eq!(zh(mixed), mixed);
}

#[test]
fn patterns_match_whole_texts_only() {
    assert_eq!(
        matches("thread {id} does not exist", "thread t-1 does not exist"),
        Some(vec![("id", "t-1")])
    );
    assert_eq!(matches("thread {id} does not exist", "thread  does not exist"), None);
    assert_eq!(matches("thread {id} does not exist", "the thread t-1 does not exist"), None);
    assert_eq!(
        matches("run {run} of thread {id} is", "run r-1 of thread t-2 is"),
        Some(vec![("run", "r-1"), ("id", "t-2")])
    );
    assert_eq!(matches("no placeholder", "no placeholder"), Some(Vec::new()));
    assert_eq!(matches("no placeholder", "no placeholder!"), None);
}

/// Every pattern's placeholders can be matched (no two in a row, which `matches` cannot split).
#[test]
fn no_pattern_has_adjacent_placeholders() {
    for msg in NOTICES.iter().chain(CONCLUSIONS).chain(ADVICE) {
        assert!(!english(*msg).contains("}{"), "{msg:?}");
    }
}
