//! The message catalog: every user-visible string of the UI, in English and Simplified Chinese.
//!
//! Keys are the [`Msg`] enum and each language is one exhaustive `match`, so a key missing from a
//! language fails to compile; the tests check what the compiler cannot (no empty text, the same
//! `{placeholders}` in both languages).

/// A language of the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    ZhCn,
}

impl Lang {
    /// The language for a BCP 47 tag (`zh`, `zh-CN`, `zh-Hans` → Chinese; anything else English).
    pub fn from_tag(tag: &str) -> Lang {
        let tag = tag.to_ascii_lowercase();
        if tag == "zh" || tag.starts_with("zh-cn") || tag.starts_with("zh-hans") {
            Lang::ZhCn
        } else {
            Lang::En
        }
    }

    /// The `lang` attribute value of the document.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }
}

/// Declares the [`Msg`] keys with their English and Chinese text in one table.
macro_rules! catalog {
    ($( $(#[$doc:meta])* $key:ident => $en:literal, $zh:literal; )*) => {
        /// A key of the message catalog.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Msg {
            $( $(#[$doc])* $key, )*
        }

        impl Msg {
            /// Every key, in declaration order.
            pub const ALL: &'static [Msg] = &[$(Msg::$key,)*];
        }

        fn english(msg: Msg) -> &'static str {
            match msg {
                $( Msg::$key => $en, )*
            }
        }

        fn chinese(msg: Msg) -> &'static str {
            match msg {
                $( Msg::$key => $zh, )*
            }
        }
    };
}

catalog! {
    /// Product name.
    AppName => "Panelot", "Panelot";
    /// Status: connecting.
    StatusConnecting => "Connecting to the engine…", "正在连接引擎…";
    /// Status: connected.
    StatusReady => "Connected to the engine.", "已连接到引擎。";
    /// Status: reconnecting after a drop.
    StatusReconnecting => "Reconnecting to the engine…", "正在重新连接引擎…";
    /// Status: the extension must be reloaded.
    StatusReloadRequired => "Panelot was updated. Reload the extension to continue.", "Panelot 已更新，请重新加载扩展后继续。";
    /// Input disabled because of a reload.
    InputDisabledReload => "Input is disabled until the extension is reloaded.", "在重新加载扩展之前无法输入。";
    /// A malformed engine message was received.
    MalformedEvent => "The engine sent a message this page cannot read: {detail}", "引擎发来了无法解析的消息：{detail}";
    /// Thread list: new thread.
    NewThread => "New chat", "新对话";
    /// Thread list title.
    Threads => "Chats", "对话";
    /// Thread group: pinned.
    GroupPinned => "Pinned", "已置顶";
    /// Thread group: today.
    GroupToday => "Today", "今天";
    /// Thread group: yesterday.
    GroupYesterday => "Yesterday", "昨天";
    /// Thread group: the last 7 days.
    GroupLastWeek => "Last 7 days", "最近 7 天";
    /// Thread group: older.
    GroupOlder => "Older", "更早";
    /// Action: rename.
    Rename => "Rename", "重命名";
    /// Action: pin.
    Pin => "Pin", "置顶";
    /// Action: unpin.
    Unpin => "Unpin", "取消置顶";
    /// Action: delete.
    Delete => "Delete", "删除";
    /// Delete confirmation.
    ConfirmDelete => "Delete “{title}”? This cannot be undone.", "删除“{title}”？此操作无法撤销。";
    /// Untitled thread.
    Untitled => "Untitled", "未命名";
    /// Badge: running.
    BadgeRunning => "Running", "运行中";
    /// Badge: waiting for approval.
    BadgeApproval => "Waiting for approval", "等待批准";
    /// Empty thread placeholder.
    EmptyThread => "Ask anything about the page you are on.", "可以就当前页面提出任何问题。";
    ShowEarlier => "Show earlier messages", "显示更早的消息";
    /// Composer placeholder.
    ComposerPlaceholder => "Message Panelot — Enter to send, Shift+Enter for a new line", "给 Panelot 发消息 — Enter 发送，Shift+Enter 换行";
    /// Composer placeholder while a turn runs.
    ComposerPlaceholderRunning => "Enter steers, Shift+Alt+Enter queues, Esc stops", "Enter 引导，Shift+Alt+Enter 排队，Esc 停止";
    /// Button: send.
    Send => "Send", "发送";
    /// Button: stop.
    Stop => "Stop", "停止";
    /// Queue dock title.
    Queued => "Queued ({n})", "排队中（{n}）";
    /// Action: remove a queued message.
    Remove => "Remove", "移除";
    /// Role label: you.
    RoleUser => "You", "你";
    /// Role label: assistant.
    RoleAssistant => "Panelot", "Panelot";
    /// Reasoning section.
    Reasoning => "Reasoning", "思考过程";
    /// Message waiting for acknowledgement.
    Sending => "Sending…", "发送中…";
    /// A message the engine refused.
    Rejected => "Not sent: {message}", "未发送：{message}";
    /// Tool card: running.
    ToolRunning => "Running", "运行中";
    /// Tool card: succeeded.
    ToolOk => "Done", "完成";
    /// Tool card: failed.
    ToolFailed => "Failed", "失败";
    /// Tool card: details toggle.
    Details => "Details", "详情";
    /// Token usage line.
    Usage => "{input} in · {output} out", "输入 {input} · 输出 {output}";
    /// Note: the answer was cut by the token limit.
    NoteMaxTokens => "The answer hit the output token limit and may be incomplete.", "回答达到输出 token 上限，可能不完整。";
    /// Note: the provider filtered the answer.
    NoteContentFilter => "The provider filtered this answer.", "服务商过滤了此回答。";
    /// Note: the turn was interrupted.
    NoteInterrupted => "Stopped.", "已停止。";
    /// Error card title.
    ErrorTitle => "Something went wrong", "出错了";
    /// Error card: open settings.
    OpenSettings => "Open settings", "打开设置";
    /// Error card: retry.
    Retry => "Retry", "重试";
    /// Message action: edit and resend.
    Edit => "Edit", "编辑";
    /// Edit box: send the edited message.
    SaveAndSend => "Send", "发送";
    /// Answer action: regenerate.
    Regenerate => "Regenerate", "重新生成";
    /// Composer: model selector.
    ModelForTurn => "Model", "模型";
    /// Composer: the thread's own model.
    ThreadModel => "Default model", "默认模型";
    /// Composer: permission-mode selector.
    PolicyForTurn => "Permissions", "权限";
    TrustedInput => "Trusted input", "可信输入";
    TrustedInputHint => "Lets the model click and type as a real user through Chrome's debugger (Chrome shows a debugging bar while it acts)", "允许模型通过 Chrome 调试器像真实用户一样点击和输入（操作时 Chrome 会显示调试提示条）";
    /// Composer: the thread's own permission mode.
    ThreadPolicy => "Default permissions", "默认权限";
    /// Composer: attach the current page.
    AttachPage => "Attach page", "附加页面";
    /// Composer: attach the selection.
    AttachSelection => "Attach selection", "附加选中内容";
    /// Composer: the page could not be read.
    AttachFailed => "Could not read the current tab: {detail}", "无法读取当前标签页：{detail}";
    /// Composer: nothing is selected.
    NothingSelected => "Nothing is selected in the current tab.", "当前标签页中没有选中内容。";
    /// Attached context chip: remove.
    Detach => "Remove attachment", "移除附件";
    /// Queue dock: edit a queued message.
    EditQueued => "Edit", "编辑";
    /// Queue dock: save the edit.
    SaveQueued => "Save", "保存";
    /// Thread list: confirm the deletion.
    ConfirmDeleteYes => "Delete", "删除";
    /// Thread list: rename box.
    RenameTo => "New title", "新标题";
    /// Approval flag: sensitive payload.
    FlagSensitivePayload => "Sensitive data", "敏感数据";
    /// Approval flag: debugger escalation.
    FlagEscalation => "Uses the debugger", "使用调试器";
    /// Approval flag: host permission needed.
    FlagHostPermission => "Needs access to this site (Chrome will ask)", "需要访问此网站（Chrome 会询问）";
    /// Approval flag: tainted input.
    FlagTainted => "Uses text that came from a page", "使用了来自网页的文本";
    /// Approval flag: internationalized host.
    FlagIdnHost => "Internationalized domain name: check the address carefully", "国际化域名：请仔细核对地址";
    /// Settings: extra headers field.
    CustomHeaders => "Extra headers (one Name: value per line)", "额外请求头（每行一个 名称: 值）";
    /// Settings: quirks field.
    Quirks => "Provider quirks", "服务商兼容选项";
    /// Settings: a header line is malformed.
    FieldBadHeader => "{field}: each line must be Name: value.", "{field}：每行必须为 名称: 值。";
    /// Settings: verify a connection.
    Verify => "Verify", "检查";
    /// Settings: verification running.
    Verifying => "Checking…", "正在检查…";
    /// Verification report: every check passed.
    VerifyOk => "Everything works: reachable, key accepted, streaming and tool use.", "一切正常：可访问、密钥有效、支持流式输出和工具调用。";
    /// Verification report line.
    VerifyChecks => "Reachable: {reachable} · Key: {key} · Streaming: {streaming} · Tools: {tools}", "可访问：{reachable} · 密钥：{key} · 流式：{streaming} · 工具：{tools}";
    /// Verification failure: invalid key.
    VerifyInvalidKey => "The key was rejected.", "密钥被拒绝。";
    /// Verification failure: unreachable.
    VerifyUnreachable => "The server could not be reached.", "无法访问服务器。";
    /// Verification failure: no model.
    VerifyNoModel => "No model was given and none could be listed.", "未指定模型，也无法列出模型。";
    /// Verification failure: protocol mismatch.
    VerifyProtocolMismatch => "The server does not speak the expected API.", "服务器使用的不是预期的 API。";
    /// Verification failure: no tool use.
    VerifyNoToolUse => "The model does not use tools.", "该模型不支持工具调用。";
    /// Yes.
    Yes => "yes", "是";
    /// No.
    No => "no", "否";
    /// Branch switcher: previous.
    PreviousBranch => "Previous version", "上一个版本";
    /// Branch switcher: next.
    NextBranch => "Next version", "下一个版本";
    /// Approval card title.
    ApprovalTitle => "Allow {tool} on {origin}?", "允许在 {origin} 上执行 {tool}？";
    /// Approval card title for a call without a site (listing tabs): no "for this site" either.
    ApprovalTitleNoSite => "Allow {tool}?", "允许执行 {tool}？";
    /// Approval: accept once.
    ApprovalAccept => "Allow once (Y)", "允许一次（Y）";
    /// Approval: accept for the session.
    ApprovalSession => "Allow this session (S)", "本次会话允许（S）";
    /// Approval: accept for the site.
    ApprovalSite => "Always allow on this site (A)", "始终允许此网站（A）";
    /// Approval: decline.
    ApprovalDecline => "Decline (N)", "拒绝（N）";
    /// Approval: cancel.
    ApprovalCancel => "Decline and stop (Esc)", "拒绝并停止（Esc）";
    /// Recovery card: interrupted.
    RecoveryInterrupted => "The answer was interrupted.", "回答被中断。";
    /// Recovery card: uncertain write.
    RecoveryUncertain => "It is unknown whether {tool} ran.", "无法确定 {tool} 是否已执行。";
    /// Recovery: continue.
    RecoveryContinue => "Continue", "继续";
    /// Recovery: mark done.
    RecoveryMarkDone => "Mark as done", "标记为已完成";
    /// Recovery: fail.
    RecoveryFail => "Give up", "放弃";
    /// Open in the full-page chat.
    OpenInTab => "Open in a tab", "在标签页中打开";
    /// Settings page title.
    Settings => "Settings", "设置";
    /// Settings: connections section.
    Connections => "Model connections", "模型连接";
    /// Settings: first-run explanation.
    NoModelConfigured => "Add a model connection to start chatting.", "添加一个模型连接即可开始对话。";
    /// Connection form: kind.
    ConnectionKind => "Kind", "类型";
    /// Connection kind: OpenAI-compatible.
    KindOpenAi => "OpenAI-compatible", "OpenAI 兼容";
    /// Connection kind: Anthropic.
    KindAnthropic => "Anthropic", "Anthropic";
    /// Connection form: name.
    ConnectionName => "Name", "名称";
    /// Connection form: base URL.
    BaseUrl => "Base URL", "Base URL";
    /// Connection form: API key.
    ApiKey => "API key", "API 密钥";
    /// Connection form: default model.
    DefaultModel => "Default model", "默认模型";
    /// Connection form: save.
    Save => "Save", "保存";
    /// Connection form: saved.
    Saved => "Saved.", "已保存。";
    /// Validation: required field.
    FieldRequired => "{field} is required.", "{field} 为必填项。";
    /// Validation: bad URL.
    FieldBadUrl => "{field} must start with https:// (or http:// for localhost).", "{field} 必须以 https:// 开头（localhost 可用 http://）。";
    /// Settings: language.
    Language => "Language", "语言";
    /// Settings: permission mode.
    PermissionMode => "Permission mode", "权限模式";
    PermissionRules => "Permission rules", "权限规则";
    RuleAllow => "Allow", "允许";
    RuleAsk => "Ask", "询问";
    RuleDeny => "Deny", "拒绝";
    AddRule => "Add rule", "添加规则";
    /// Permission mode: ask before everything.
    PolicyAlways => "Ask before every action", "每个操作前都询问";
    /// Permission mode: ask before writes.
    PolicyUntrusted => "Ask before actions that change things", "更改内容的操作前询问";
    /// Permission mode: automatic.
    PolicyAuto => "Act without asking (sensitive sites and data still ask)", "直接执行（敏感网站和数据仍会询问）";
    /// Interaction card: the model asks.
    QuestionTitle => "The assistant asks", "助手提问";
    /// Interaction card: a step for the user.
    UserActionTitle => "Your turn", "需要您操作";
    /// Interaction card: send the answer.
    Answer => "Answer", "回答";
    /// Interaction card: the step is done.
    Done => "Done", "已完成";
    /// Interaction card: do not answer.
    Skip => "Don't answer", "不回答";
    /// Cancel.
    Cancel => "Cancel", "取消";
    /// Validation: text longer than allowed.
    FieldTooLong => "{field} is too long.", "{field} 过长。";
    /// Validation: a number outside its range (the label says the range).
    FieldOutOfRange => "{field} is not a number in the allowed range.", "{field} 不是允许范围内的数字。";
    /// Settings: presets section.
    Presets => "Model presets", "模型预设";
    /// Preset form: the model field.
    PresetModel => "Model", "模型";
    /// Preset form: no model chosen yet.
    ChooseModel => "Choose a model", "选择模型";
    /// Preset form: instructions added to the system prompt.
    Instructions => "Instructions", "指令";
    /// Preset form: a setting left to the global one.
    Inherit => "Same as settings", "与全局设置相同";
    /// Preset form: tool families.
    ToolFamilies => "Tool families", "工具类别";
    /// Preset form: keep the default tool families.
    DefaultToolFamilies => "Default tool families", "默认工具类别";
    /// Tool family: tabs and browser data.
    ToolsTabs => "Tabs and browser data", "标签页和浏览器数据";
    /// Tool family: the page executor.
    ToolsPage => "Page actions", "页面操作";
    /// Tool family: the debugger.
    ToolsDebugger => "Trusted input (debugger)", "可信输入（调试器）";
    /// Tool family: MCP servers.
    ToolsMcp => "MCP servers", "MCP 服务器";
    /// Tool family: built into the engine.
    ToolsBuiltin => "Built-in tools", "内置工具";
    /// Preset form: temperature.
    Temperature => "Temperature (0 to 2)", "温度（0 到 2）";
    /// Preset form: output token limit.
    MaxTokens => "Max output tokens (1 or more)", "最大输出 token 数（至少 1）";
    /// Preset form: reasoning effort.
    ReasoningEffort => "Reasoning effort", "推理强度";
    /// A parameter the provider decides.
    ProviderDefault => "Provider default", "服务商默认";
    /// Reasoning effort: low.
    EffortLow => "Low", "低";
    /// Reasoning effort: medium.
    EffortMedium => "Medium", "中";
    /// Reasoning effort: high.
    EffortHigh => "High", "高";
    /// Preset form: the engine refused to save.
    NotSaved => "Not saved: {message}", "未保存：{message}";
    /// Preset form: add a new preset.
    AddPreset => "Add preset", "添加预设";
    /// Composer: the preset selector.
    PresetForThread => "Preset", "预设";
    /// Composer: the thread uses no preset.
    NoPreset => "No preset", "不使用预设";
    /// Composer: the model of the thread's preset, used while no model is chosen for the turn.
    PresetsModel => "{model} (preset)", "{model}（预设）";
    /// Composer: the permission mode a turn gets when none is chosen for it, set on the chat.
    PolicyOfThread => "{mode} (this chat)", "{mode}（本对话）";
    /// Composer: the same, from the chat's preset.
    PolicyOfPreset => "{mode} (preset)", "{mode}（预设）";
    /// Composer: the same, from the settings.
    PolicyOfSettings => "{mode} (default)", "{mode}（默认）";

    // The shell, first run, composer and copy (the design-system work).
    /// The default model's option in the model chip: names the model.
    ModelOfSettings => "{model} (default)", "{model}（默认）";
    /// The model chip when no model is set up.
    NoModel => "No model", "未设置模型";
    /// The composer's options button and popover title.
    TurnOptions => "Message options", "消息选项";
    /// The composer's attach menu button.
    Attach => "Attach", "附加";
    /// The send button while a turn runs (it steers).
    SendSteer => "Send (adds to the running answer)", "发送（补充到正在进行的回答）";
    /// Closes a drawer or panel.
    Close => "Close", "关闭";
    /// Dismisses a notice.
    Dismiss => "Dismiss", "知道了";
    /// The button that opens the options page on the connection form.
    ConnectModel => "Connect a model", "连接模型";
    /// Empty state without a model: title.
    EmptyNoModelTitle => "Connect a model to start", "连接一个模型即可开始";
    /// Empty state without a model: what to do.
    EmptyNoModelText => "Panelot works with a model you choose: a hosted API such as OpenAI, Anthropic or OpenRouter, or one running on this computer such as Ollama or LM Studio.", "Panelot 使用您选择的模型：可以是 OpenAI、Anthropic、OpenRouter 等在线 API，也可以是在本机运行的 Ollama、LM Studio 等。";
    /// Empty state of a new chat: title.
    EmptyReadyTitle => "Ask about the page you are on", "就当前页面提问";
    /// Empty state of a new chat: what Panelot does.
    EmptyReadyText => "Panelot reads the tab beside it and can act in the browser for you. It asks before anything that changes a page.", "Panelot 会读取旁边的标签页，并可以替您在浏览器中操作。更改页面之前会先征求您的同意。";
    /// A send without a model: nothing was sent.
    NoModelNotice => "Connect a model first. Your message was not sent; it is still in the box.", "请先连接一个模型。消息尚未发送，仍保留在输入框中。";
    /// Copy a message.
    Copy => "Copy", "复制";
    /// A copy button after copying.
    Copied => "Copied", "已复制";
    /// Copy a code block.
    CopyCode => "Copy code", "复制代码";
}

/// The text of `msg` in `lang`.
pub fn text(lang: Lang, msg: Msg) -> &'static str {
    match lang {
        Lang::En => english(msg),
        Lang::ZhCn => chinese(msg),
    }
}

/// The text of `msg` in `lang` with each `{name}` replaced by its value.
pub fn format(lang: Lang, msg: Msg, args: &[(&str, &str)]) -> String {
    let mut out = text(lang, msg).to_owned();
    for (name, value) in args {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

#[cfg(test)]
#[path = "i18n_tests.rs"]
mod tests;
