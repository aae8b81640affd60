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
    /// Badge: an approval or a question waits for the user.
    BadgeWaiting => "Waiting for you", "等待你的回应";
    /// Empty thread placeholder.
    EmptyThread => "Ask anything about the page you are on.", "可以就当前页面提出任何问题。";
    ShowEarlier => "Show earlier messages", "显示更早的消息";
    /// Composer placeholder.
    ComposerPlaceholder => "Message Panelot — Enter to send, Shift+Enter for a new line", "给 Panelot 发消息 — Enter 发送，Shift+Enter 换行";
    /// Composer placeholder while a turn is paused: a message ends it and starts a new turn.
    ComposerPlaceholderPaused => "Resume above, or send a new message to end the paused run", "点上方的“继续执行”，或发送新消息以结束已暂停的任务";
    /// Composer placeholder while a write of unknown outcome waits for the user's choice.
    ComposerPlaceholderUndecided => "Choose above first; a message sent now waits its turn", "请先在上方选择；现在发送的消息将排队等待";
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
    /// Composer's slash menu: its name.
    McpPrompts => "MCP prompts", "MCP 提示词";
    /// Composer's slash menu: no server offers a prompt.
    McpNoPrompts => "No MCP prompts", "没有 MCP 提示词";
    /// Composer's slash menu: nothing matches what was typed.
    McpNoMatch => "No MCP prompt matches “{query}”", "没有与“{query}”匹配的 MCP 提示词";
    /// Composer's MCP menus: the listing is on its way.
    McpListing => "Asking the MCP servers…", "正在询问 MCP 服务器…";
    /// Composer's MCP menus: a server could not be listed.
    McpListFailed => "{server} could not be listed: {reason}", "无法列出 {server}：{reason}";
    /// Composer's MCP menus: the engine refused to list.
    McpListRefused => "The MCP servers could not be asked: {reason}", "无法询问 MCP 服务器：{reason}";
    /// Composer's slash menu: how to use it.
    McpMenuHint => "↑↓ choose · Enter add · Esc close", "↑↓ 选择 · Enter 添加 · Esc 关闭";
    /// Composer's prompt argument form: its name.
    McpPromptArguments => "Arguments of {command}", "{command} 的参数";
    /// Composer's prompt argument form: a required argument.
    McpRequired => "required", "必填";
    /// Composer's prompt argument form: a required argument left empty.
    McpArgumentMissing => "Fill in {name}.", "请填写 {name}。";
    /// Composer's prompt argument form: fetch the prompt.
    McpAddPrompt => "Add prompt", "添加提示词";
    /// Composer's attach menu: an MCP resource.
    AttachMcpResource => "MCP resource…", "MCP 资源…";
    /// Composer's attach menu: files from the computer.
    AttachFile => "Attach file…", "附加文件…";
    /// Composer: a picked file is over the limit of one file.
    FileTooLarge => "{name} is larger than 5 MB and was not attached.", "{name} 超过 5 MB，未附加。";
    /// Composer: a picked file would take the message's files over their limit.
    FilesTooLarge => "{name} was not attached: a message's files may have 10 MB together.", "未附加 {name}：一条消息的文件合计不能超过 10 MB。";
    /// Composer: the message has as many files as it may.
    FilesTooMany => "{name} was not attached: a message may have 10 files.", "未附加 {name}：一条消息最多 10 个文件。";
    /// Composer: the engine did not store a file of a message: its id is another file's.
    FileIdTaken => "{name} was not attached: another file already has its id. Attach it again.", "未附加 {name}：另一个文件已使用它的标识。请重新附加。";
    /// Composer: the engine did not store a file of a message, for another reason.
    FileNotStored => "{name} was not attached: {detail}", "未附加 {name}：{detail}";
    /// Composer: a picked file could not be read.
    FileReadFailed => "{name} could not be read: {detail}", "无法读取 {name}：{detail}";
    /// Composer's resource list: no server offers one.
    McpNoResources => "No MCP resources", "没有 MCP 资源";
    /// Composer's resource list: back to the attach menu.
    McpBack => "Back", "返回";
    /// Composer: a prompt or resource is being fetched.
    McpFetching => "Getting {label}…", "正在获取 {label}…";
    /// The chip of a fetch the message being sent waits for.
    McpFetchingThenSend => "Sending once {label} is here…", "{label} 获取后即发送…";
    /// Composer: a prompt or resource could not be fetched.
    McpFetchRefused => "Could not get {label}: {reason}", "无法获取 {label}：{reason}";
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
    /// Settings: a header line is malformed.
    FieldBadHeader => "{field}: each line must be Name: value.", "{field}：每行必须为 名称: 值。";
    /// Settings: verification running.
    Verifying => "Checking…", "正在检查…";
    /// Verification report: every check passed.
    VerifyOk => "Everything works.", "一切正常。";
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
    /// Branch switcher: previous.
    PreviousBranch => "Previous version", "上一个版本";
    /// Branch switcher: next.
    NextBranch => "Next version", "下一个版本";
    /// Recovery card: interrupted.
    RecoveryInterrupted => "The answer was interrupted.", "回答被中断。";
    /// Recovery card: uncertain write.
    RecoveryUncertain => "It is unknown whether {tool} ran.", "无法确定 {tool} 是否已执行。";
    /// Recovery card: the user paused the run from the page (the reason says how).
    RecoveryPausedByUser => "The run is paused.", "任务已暂停。";
    /// Recovery: continue.
    RecoveryContinue => "Continue", "继续";
    /// Recovery: continue a run the user paused.
    RecoveryResume => "Resume", "继续执行";
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
    /// Connection kind: OpenAI-compatible.
    KindOpenAi => "OpenAI-compatible", "OpenAI 兼容";
    /// Connection kind: Anthropic.
    KindAnthropic => "Anthropic", "Anthropic";
    /// Connection form: name.
    ConnectionName => "Name", "名称";
    /// Connection form: base URL.
    BaseUrl => "Base URL", "Base URL";
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
    AgentOpensTitle => "Pages the agent opens", "智能体打开的页面";
    AgentOpensLabel => "Let the agent open web pages beside the chat", "允许智能体在聊天旁打开网页";
    AgentOpensHint => "When it is on, the agent can open an http(s) page for you in a new tab next to the chat that asked. Off by default.", "开启后，智能体可以在发起请求的聊天旁的新标签页中为你打开 http(s) 网页。默认关闭。";
    /// Settings: permission mode.
    PermissionMode => "Permission mode", "权限模式";
    PermissionRules => "Permission rules", "权限规则";
    RuleAllow => "Allow", "允许";
    RuleAsk => "Ask", "询问";
    RuleDeny => "Deny", "拒绝";
    AddRule => "Add rule", "添加规则";
    /// A rule's action: every tool.
    RuleAnyAction => "Every action", "所有操作";
    /// A rule's action: tools by name prefix.
    RuleToolsStarting => "Tools whose name starts with {prefix}", "名称以 {prefix} 开头的工具";
    /// A rule's site: every site.
    RuleEverySite => "on every site", "在所有网站";
    /// A rule's site: one pattern.
    RuleOnSite => "on {origin}", "在 {origin}";
    /// The rule form: the action box's label.
    RuleWhat => "Action", "操作";
    /// The rule form: what the action box takes.
    RuleWhatHint => "A tool, a family such as category:fill, or * for every action", "工具名、工具类别（如 category:fill），或 * 表示所有操作";
    /// The rule form: the site box's label.
    RuleWhere => "Site", "网站";
    /// The rule form: the verdict's label.
    RuleVerdictLabel => "Then", "则";
    /// Tool family `navigate`.
    CategoryNavigate => "Moving between pages and tabs", "在页面和标签页间移动";
    /// Tool family `organize`.
    CategoryOrganize => "Grouping tabs", "整理标签页";
    /// Tool family `click`.
    CategoryClick => "Clicks", "点击";
    /// Tool family `fill`.
    CategoryFill => "Typing, choosing and key presses", "输入、选择和按键";
    /// Tool family `eval`.
    CategoryEval => "Running page scripts", "运行页面脚本";
    /// Tool family `download`.
    CategoryDownload => "Downloads", "下载";
    /// Tool family `upload`.
    CategoryUpload => "Uploads", "上传";
    /// Tool family `interact`.
    CategoryInteract => "Hovering and dragging", "悬停和拖动";
    /// Tool family `memory`.
    CategoryMemory => "Writing memory", "写入记忆";
    /// Tool family `mcp`.
    CategoryMcp => "Tools of MCP servers", "MCP 服务器的工具";
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
    /// Interaction card: an MCP server asks the user during a tool call.
    McpAskTitle => "{server} asks", "{server} 提问";
    /// Interaction card: send the form to the MCP server.
    McpAskSend => "Send", "发送";
    /// Interaction card: decline the MCP server's question.
    McpAskDecline => "Decline", "拒绝";
    /// Interaction card: a required field of the server's form is empty.
    McpAskMissing => "Fill in “{field}”.", "请填写“{field}”。";
    /// Interaction card: a field of the server's form needs a number.
    McpAskNumber => "“{field}” needs a number.", "“{field}”需要数字。";
    /// Interaction card: a field of the server's form needs a whole number.
    McpAskWhole => "“{field}” needs a whole number.", "“{field}”需要整数。";
    /// Interaction card: a yes/no field is on.
    McpAskYes => "Yes", "是";
    /// Wait card: the run waits for a page.
    WatchTitle => "Waiting for the page", "正在等待页面";
    /// Wait card: until some text shows.
    WatchText => "Until the page shows “{value}”", "直到页面出现“{value}”";
    /// Wait card: until some text is gone.
    WatchTextGone => "Until “{value}” is gone from the page", "直到页面上不再有“{value}”";
    /// Wait card: until the tab's URL contains something.
    WatchUrl => "Until the tab's address contains “{value}”", "直到标签页地址包含“{value}”";
    /// Wait card: when a watch gives up.
    WatchGivesUp => "Gives up at {time}", "{time} 停止等待";
    /// Wait card: end the wait now.
    StopWaiting => "Stop waiting", "停止等待";
    /// Wait card: the run continues later.
    ScheduleTitle => "Continuing later", "稍后继续";
    /// Wait card: when the run continues.
    ScheduleAt => "Continues at {time}", "将于 {time} 继续";
    /// Wait card: continue the run at once.
    ContinueNow => "Continue now", "立即继续";
    /// Cancel.
    Cancel => "Cancel", "取消";
    /// Validation: text longer than allowed.
    FieldTooLong => "{field} is too long.", "{field} 过长。";
    /// Validation: a number outside its range (the label says the range).
    FieldOutOfRange => "{field} is not a number in the allowed range.", "{field} 不是允许范围内的数字。";
    /// Settings: presets section.
    Presets => "Model presets", "模型预设";
    /// Settings: the agent's memory.
    Memory => "Memory", "记忆";
    MemoryIntro => "Notes Panelot keeps across chats. It reads them when you or a chat ask it to.", "Panelot 在各个对话之间保留的笔记。当你或某个对话需要时，它会读取这些笔记。";
    MemoryEmpty => "No notes yet. Add one here, or ask a chat to remember something.", "还没有笔记。可以在这里添加，或让对话记住某件事。";
    MemoryAdd => "Add a note", "添加笔记";
    /// The name a note is saved under.
    MemoryKey => "Name", "名称";
    MemoryValue => "Note", "笔记";
    MemorySavedAt => "Saved {when}", "保存于 {when}";
    ConfirmDeleteNote => "Delete the note “{key}”? Chats will no longer find it.", "删除笔记“{key}”？之后对话将无法再读取它。";
    MemoryKeyLength => "A name has 1 to {n} characters.", "名称长度为 1 到 {n} 个字符。";
    MemoryValueLength => "A note has 1 to {n} characters.", "笔记长度为 1 到 {n} 个字符。";
    MemoryKeyTaken => "There is already a note named “{key}”: edit that one instead.", "已有名为“{key}”的笔记，请直接编辑它。";
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

    // Agent activity, approvals and errors (the activity work).
    /// A step: what it does, on a site.
    OnSite => "{action} on {site}", "在 {site} 上{action}";
    /// An element named by the page: its role and name.
    ElementNamed => "{role} “{name}”", "{role}“{name}”";
    /// An element without a name.
    ElementUnnamed => "a {role}", "一个{role}";
    /// An element not known yet.
    ElementUnknown => "an element", "一个元素";
    RoleLink => "link", "链接";
    RoleButton => "button", "按钮";
    RoleTextbox => "textbox", "输入框";
    RoleSearchbox => "search box", "搜索框";
    RoleCheckbox => "checkbox", "复选框";
    RoleRadio => "radio button", "单选按钮";
    RoleCombobox => "list", "下拉列表";
    RoleMenuItem => "menu item", "菜单项";
    RoleTab => "tab", "标签";
    RoleSwitch => "switch", "开关";
    ActTabsList => "List the open tabs", "列出打开的标签页";
    ActTabsListDone => "Listed the open tabs", "列出了打开的标签页";
    ActTabOpen => "Open {url} in a new tab", "在新标签页中打开 {url}";
    ActTabOpenDone => "Opened {url} in a new tab", "在新标签页中打开了 {url}";
    ActTabFocus => "Show the tab “{title}”", "显示标签页“{title}”";
    ActTabFocusDone => "Showed the tab “{title}”", "显示了标签页“{title}”";
    ActTabClose => "Close the tab “{title}”", "关闭标签页“{title}”";
    ActTabCloseDone => "Closed the tab “{title}”", "关闭了标签页“{title}”";
    ActNavigate => "Go to {url}", "打开 {url}";
    ActNavigateDone => "Went to {url}", "打开了 {url}";
    ActGoBack => "Go back", "后退";
    ActGoBackDone => "Went back", "已后退";
    ActGoForward => "Go forward", "前进";
    ActGoForwardDone => "Went forward", "已前进";
    ActReadPage => "Read the page", "读取页面";
    ActReadPageDone => "Read the page", "读取了页面";
    ActFind => "Look for “{query}”", "查找“{query}”";
    ActFindDone => "Looked for “{query}”", "查找了“{query}”";
    ActExtract => "Take the page’s text", "提取页面文字";
    ActExtractDone => "Took the page’s text", "提取了页面文字";
    ActSelection => "Read the selected text", "读取选中的文字";
    ActSelectionDone => "Read the selected text", "读取了选中的文字";
    ActClick => "Click {element}", "点击{element}";
    ActClickDone => "Clicked {element}", "点击了{element}";
    ActType => "Type “{text}” into {element}", "在{element}中输入“{text}”";
    ActTypeDone => "Typed “{text}” into {element}", "在{element}中输入了“{text}”";
    ActTypeSecret => "Type a password into {element}", "在{element}中输入密码";
    ActTypeSecretDone => "Typed a password into {element}", "在{element}中输入了密码";
    ActSelect => "Choose {values} in {element}", "在{element}中选择{values}";
    ActSelectDone => "Chose {values} in {element}", "在{element}中选择了{values}";
    ActScrollDown => "Scroll down", "向下滚动";
    ActScrollDownDone => "Scrolled down", "向下滚动了";
    ActScrollUp => "Scroll up", "向上滚动";
    ActScrollUpDone => "Scrolled up", "向上滚动了";
    ActHover => "Point at {element}", "悬停在{element}上";
    ActHoverDone => "Pointed at {element}", "悬停在了{element}上";
    ActWaitText => "Wait for “{text}”", "等待“{text}”出现";
    ActWaitTextDone => "Waited for “{text}”", "等到了“{text}”";
    ActWaitGone => "Wait until “{text}” is gone", "等待“{text}”消失";
    ActWaitGoneDone => "Waited until “{text}” was gone", "等到“{text}”消失";
    ActWaitTime => "Wait {seconds} s", "等待 {seconds} 秒";
    ActWaitTimeDone => "Waited {seconds} s", "等待了 {seconds} 秒";
    ActPressKey => "Press {key}", "按下 {key}";
    ActPressKeyDone => "Pressed {key}", "按下了 {key}";
    ActBatch => "Do {n} actions", "执行 {n} 个操作";
    ActBatchDone => "Did {n} actions", "执行了 {n} 个操作";
    ActScreenshot => "Take a screenshot", "截图";
    ActScreenshotDone => "Took a screenshot", "截了图";
    ActJavascript => "Run JavaScript", "运行 JavaScript";
    ActJavascriptDone => "Ran JavaScript", "运行了 JavaScript";
    ActAskUser => "Ask you a question", "向您提问";
    ActAskUserDone => "Asked you a question", "向您提了问";
    ActUserAction => "Ask you to do a step", "请您完成一个步骤";
    ActUserActionDone => "Asked you to do a step", "请您完成了一个步骤";
    ActFetch => "Fetch {url}", "获取 {url}";
    ActFetchDone => "Fetched {url}", "获取了 {url}";
    ActLoadTools => "Add the {group} tools", "添加{group}工具";
    ActLoadToolsDone => "Added the {group} tools", "添加了{group}工具";
    ActMemoryList => "List the saved notes", "列出保存的笔记";
    ActMemoryListDone => "Listed the saved notes", "列出了保存的笔记";
    ActMemoryRead => "Read the note “{key}”", "读取笔记“{key}”";
    ActMemoryReadDone => "Read the note “{key}”", "读取了笔记“{key}”";
    ActMemoryWrite => "Save the note “{key}”", "保存笔记“{key}”";
    ActMemoryWriteDone => "Saved the note “{key}”", "保存了笔记“{key}”";
    ActMemoryDelete => "Delete the note “{key}”", "删除笔记“{key}”";
    ActMemoryDeleteDone => "Deleted the note “{key}”", "删除了笔记“{key}”";
    GroupMemory => "memory", "记忆";
    /// The tool group of documents and downloads.
    GroupFiles => "file", "文件";
    ActArtifact => "Save the file “{name}”", "保存文件“{name}”";
    ActArtifactDone => "Saved the file “{name}”", "保存了文件“{name}”";
    ActDownload => "Download {what}", "下载 {what}";
    ActDownloadDone => "Downloaded {what}", "下载了 {what}";
    ActUpload => "Upload “{file}” to {element}", "将“{file}”上传到{element}";
    ActUploadDone => "Uploaded “{file}” to {element}", "已将“{file}”上传到{element}";
    /// A step's state.
    CallRunning => "Running", "进行中";
    CallWaiting => "Waiting for you", "等待您的答复";
    CallDone => "Done", "完成";
    CallFailed => "Failed", "失败";
    CallDeclined => "Declined", "已拒绝";
    CallDenied => "Not allowed", "不允许";
    CallNotRun => "Not run", "未执行";
    CallUnknown => "Stopped, may have run", "已停止，可能已执行";
    /// Expands a step to what the tool said.
    CallShow => "What it returned", "返回内容";
    /// A group of steps, summed up.
    SumRead => "read the page", "读取了页面";
    SumReadN => "read the page {n} times", "读取了 {n} 次页面";
    SumType => "typed into 1 field", "填写了 1 个输入框";
    SumTypeN => "typed into {n} fields", "填写了 {n} 个输入框";
    SumClick => "clicked once", "点击了 1 次";
    SumClickN => "clicked {n} times", "点击了 {n} 次";
    SumGo => "opened a page", "打开了 1 个页面";
    SumGoN => "opened {n} pages", "打开了 {n} 个页面";
    SumTabs => "checked the tabs", "查看了标签页";
    SumAsk => "asked you", "询问了您";
    SumOther => "1 other step", "另外 1 个步骤";
    SumOtherN => "{n} other steps", "另外 {n} 个步骤";
    SumFailed => "{n} failed", "{n} 个失败";
    SumDeclined => "{n} declined", "{n} 个被拒绝";
    SumDenied => "{n} not allowed", "{n} 个不允许";
    SumNotRun => "{n} not run", "{n} 个未执行";
    SumStopped => "{n} stopped", "{n} 个已停止";
    /// The approval card.
    ApprovalAsk => "Allow this?", "允许这个操作吗？";
    ApprovalPosition => "{n} of {total}", "第 {n} 个，共 {total} 个";
    ApprovalNoSite => "Not on a website", "不涉及具体网站";
    ApprovalAllow => "Allow", "允许";
    ApprovalRefuse => "Decline", "拒绝";
    ApprovalMore => "More choices", "更多选项";
    ApprovalForSession => "Allow until the browser closes", "在浏览器关闭前都允许";
    ApprovalForSite => "Always allow on {site}", "始终允许在 {site} 上执行";
    ApprovalStop => "Decline and stop", "拒绝并停止";
    ApprovalNote => "Note for Panelot if you decline (optional)", "拒绝时给 Panelot 的说明（可选）";
    ApprovalCall => "The call", "调用详情";
    /// The error card.
    ErrorModelTitle => "The model did not answer", "模型没有回答";
    ErrorDetails => "Details", "详细信息";
    ErrorStatus => "HTTP status", "HTTP 状态";
    ErrorReason => "Reason", "原因";
    ErrorUpstreamCode => "Provider’s code", "服务商错误码";
    ErrorUpstreamSaid => "The provider said", "服务商返回";
    ErrorRequestId => "Request id", "请求 ID";
    /// A model call tried again.
    RetryingIn => "Retrying in {seconds} s… (attempt {attempt})", "{seconds} 秒后重试…（第 {attempt} 次尝试）";
    RetryingNow => "Retrying… (attempt {attempt})", "正在重试…（第 {attempt} 次尝试）";

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

    // The options page: connections, defaults and language (the options work).
    /// Settings: what a connection is.
    ConnectionsIntro => "Panelot talks to a model through a connection: a hosted API with your key, or a model server on this computer.", "Panelot 通过连接与模型通信：可以是使用您密钥的在线 API，也可以是在本机运行的模型服务器。";
    /// Settings: open the form for a new connection.
    AddConnection => "Add a connection", "添加连接";
    /// Connection form: the provider template.
    Provider => "Provider", "服务商";
    /// Connection form: the keys.
    ApiKeys => "API keys", "API 密钥";
    /// Connection form: a key row.
    KeyN => "Key {n}", "密钥 {n}";
    /// Connection form: a stored key, never shown.
    SavedKeyN => "Saved key {n}", "已保存的密钥 {n}";
    /// Connection form: add a key row.
    AddKey => "Add another key", "再添加一个密钥";
    /// Connection form: remove a key row.
    RemoveKeyN => "Remove key {n}", "移除密钥 {n}";
    /// Connection form: several keys.
    KeysHint => "When a key is refused or out of quota, the next one is tried.", "某个密钥被拒绝或额度用完时，会自动改用下一个。";
    /// Connection form: local servers.
    KeyOptionalHint => "Servers on this computer usually need no key.", "本机运行的服务器通常不需要密钥。";
    /// Connection form: the model.
    ModelField => "Model", "模型";
    /// Connection form: the model may wait for the check.
    ModelHint => "Type a model id, or leave it empty and pick one from the list the server sends when the connection is checked.", "输入模型 ID，或留空，检查连接后从服务器提供的列表中选择。";
    /// Connection form: the advanced part.
    Advanced => "Advanced", "高级";
    /// Connection form: the default model's prices.
    Prices => "Prices of this model (US dollars per million tokens)", "此模型的价格（美元 / 百万 token）";
    /// Connection form: the price of input tokens.
    PriceInput => "Input", "输入";
    /// Connection form: the price of output tokens.
    PriceOutput => "Output", "输出";
    /// Connection form: what prices are for.
    PricesHint => "Optional. With prices set, each answer and the conversation show what they cost.", "可选。填写价格后，每条回答和整个对话都会显示花费。";
    /// Thread header: the tooltip of the conversation's running cost.
    ThreadCost => "Cost of this conversation so far", "此对话目前的花费";
    /// Artifact card: open the document in the viewer.
    ArtifactOpen => "Open", "打开";
    /// Artifact card and viewer: save the document as a file.
    ArtifactDownload => "Download", "下载";
    /// Artifact viewer: the document is not among the messages loaded.
    ArtifactMissing => "This file is not in the part of the chat shown here.", "此文件不在当前显示的对话内容中。";
    /// Artifact viewer: how an HTML document is shown.
    ArtifactSandboxed => "Shown in a sandbox: its scripts run, but cannot reach Panelot or the internet.", "在沙盒中显示：其中的脚本可以运行，但无法访问 Panelot 或互联网。";
    /// Kind of an artifact.
    ArtifactMarkdown => "Markdown", "Markdown";
    /// Kind of an artifact.
    ArtifactHtml => "HTML page", "HTML 网页";
    /// Kind of an artifact.
    ArtifactCsv => "CSV table", "CSV 表格";
    /// Kind of an artifact.
    ArtifactJson => "JSON", "JSON";
    /// Kind of an artifact.
    ArtifactCode => "Code", "代码";
    /// Kind of an artifact.
    ArtifactText => "Text", "文本";
    /// Connection form: the wire format.
    ApiFormat => "API format", "API 格式";
    /// Connection form: the compatibility options.
    Compatibility => "Compatibility with this server", "与此服务器的兼容性";
    /// Compatibility option.
    QuirkNoStreamOptions => "Don't ask for token counts while streaming", "流式输出时不请求 token 统计";
    /// Its hint.
    QuirkNoStreamOptionsHint => "For older servers that refuse the request otherwise.", "适用于否则会拒绝请求的旧版服务器。";
    /// Compatibility option.
    QuirkThinkTags => "Show text in <think> tags as reasoning", "将 <think> 标签中的文字显示为思考过程";
    /// Its hint.
    QuirkThinkTagsHint => "For models that write their reasoning into the answer.", "适用于把思考过程写在回答里的模型。";
    /// Compatibility option.
    QuirkOneToolCall => "One tool call at a time", "每次只调用一个工具";
    /// Its hint.
    QuirkOneToolCallHint => "For models that get several calls at once wrong.", "适用于同时发起多个调用时容易出错的模型。";
    /// Compatibility option.
    QuirkMaxCompletionTokens => "Send the output limit as max_completion_tokens", "以 max_completion_tokens 发送输出上限";
    /// Its hint.
    QuirkMaxCompletionTokensHint => "OpenAI's reasoning models need it; most other servers read max_tokens.", "OpenAI 的推理模型需要它；其他服务器大多读取 max_tokens。";
    /// Compatibility option.
    QuirkNoSystemRole => "Put the instructions into the first message", "将指令放入第一条消息";
    /// Its hint.
    QuirkNoSystemRoleHint => "For models without a system role.", "适用于不支持 system 角色的模型。";
    /// Compatibility option.
    QuirkNoReasoningReplay => "Don't send earlier reasoning back", "不回传之前的思考过程";
    /// Its hint.
    QuirkNoReasoningReplayHint => "For servers that refuse reasoning in the conversation.", "适用于拒绝对话中包含思考过程的服务器。";
    /// Compatibility option.
    QuirkManualThinking => "Fixed thinking budgets", "固定思考预算";
    /// Its hint.
    QuirkManualThinkingHint => "For older Claude models without adaptive thinking.", "适用于不支持自适应思考的旧版 Claude 模型。";
    /// Connection form: stored headers, kept unless replaced.
    SavedHeaders => "Saved: {names}. Headers typed here replace them.", "已保存：{names}。在此输入的请求头会替换它们。";
    /// Connection form: save, then check.
    SaveAndCheck => "Save and check", "保存并检查";
    /// Connection form: the save is on its way.
    SavingConnection => "Saving…", "正在保存…";
    /// Validation: a key with a space inside.
    FieldBadKey => "{field}: a key has no spaces.", "{field}：密钥不能包含空格。";
    /// Connection card: check it again.
    CheckAgain => "Check again", "重新检查";
    /// Connection card: delete, asking first.
    ConfirmDeleteConnection => "Delete “{name}”? Chats that use it will need another model.", "删除“{name}”？使用它的对话需要换用其他模型。";
    /// Connection card: no key.
    NoKey => "no key", "无密钥";
    /// Connection card: one key.
    OneKey => "1 key", "1 个密钥";
    /// Connection card: several keys.
    NKeys => "{n} keys", "{n} 个密钥";
    /// Connection card: no model yet.
    NoModelChosen => "No model chosen yet", "尚未选择模型";
    /// Connection card: pick from the listed models.
    ModelToUse => "Model to use", "使用的模型";
    /// Connection card: keep the chosen model.
    UseModel => "Use this model", "使用此模型";
    /// Connection card: the listed models.
    ModelsListed => "{n} models on this server", "此服务器上有 {n} 个模型";
    /// Check step.
    StepReached => "Server reached", "已连接服务器";
    /// Check step.
    StepKey => "Key accepted", "密钥有效";
    /// Check step.
    StepStreaming => "Answers stream", "支持流式回答";
    /// Check step.
    StepTools => "Tool calls work", "支持工具调用";
    /// Check step state, for screen readers.
    StepPassed => "passed", "通过";
    /// Check step state, for screen readers.
    StepFailed => "failed", "失败";
    /// Check step state, for screen readers.
    StepUnchecked => "not checked", "未检查";
    /// Check verdict: answered, then stopped.
    VerifyStopped => "The server answered, then stopped responding during the test.", "服务器有响应，但在测试过程中停止了响应。";
    /// Settings: the defaults section.
    Defaults => "Defaults", "默认设置";
    /// Settings: the language follows the browser.
    LanguageSystem => "Same as the browser ({language})", "跟随浏览器（{language}）";
    /// Settings: where the language applies.
    LanguageHint => "Every Panelot page uses it, also the ones already open.", "所有 Panelot 页面都会使用，包括已经打开的页面。";

    // Tool names and the engine's and providers' English, as the UI shows them (i18n::engine).
    ToolTabsList => "List tabs", "列出标签页";
    ToolTabOpen => "Open a tab", "打开标签页";
    ToolTabFocus => "Switch tab", "切换标签页";
    ToolTabClose => "Close a tab", "关闭标签页";
    ToolNavigate => "Go to a page", "打开网页";
    ToolGoBack => "Go back", "后退";
    ToolGoForward => "Go forward", "前进";
    ToolHistorySearch => "Search history", "搜索历史记录";
    ToolBookmarksSearch => "Search bookmarks", "搜索书签";
    ToolTopSites => "Most visited sites", "常去的网站";
    ToolRecentlyClosed => "Recently closed tabs", "最近关闭的标签页";
    ToolSessionRestore => "Reopen a tab", "重新打开标签页";
    ToolTabGroupsList => "List tab groups", "列出标签页分组";
    ToolTabsGroup => "Group tabs", "分组标签页";
    ToolTabGroupUpdate => "Change a tab group", "更改标签页分组";
    ToolReadPage => "Read the page", "读取页面";
    ToolFindInPage => "Find in the page", "在页面中查找";
    ToolExtract => "Extract from the page", "从页面提取";
    ToolGetSelection => "Read the selection", "读取选中内容";
    ToolClick => "Click", "点击";
    ToolType => "Type", "输入";
    ToolSelectOption => "Choose an option", "选择选项";
    ToolScroll => "Scroll", "滚动";
    ToolHover => "Point at", "悬停";
    ToolWaitFor => "Wait", "等待";
    ToolPressKey => "Press a key", "按键";
    ToolBatch => "Several actions", "一组操作";
    ToolClickTrusted => "Click (trusted input)", "点击（可信输入）";
    ToolTypeTrusted => "Type (trusted input)", "输入（可信输入）";
    ToolScreenshot => "Screenshot", "截图";
    ToolRunJavascript => "Run JavaScript", "运行 JavaScript";
    ToolReadPageDeep => "Read the whole page", "读取整个页面";
    ToolClickXy => "Click a point", "点击坐标";
    ToolDrag => "Drag", "拖动";
    ToolUploadFile => "Upload a file", "上传文件";
    ToolAskUser => "Ask you", "向您提问";
    ToolRequestUserAction => "Ask you to act", "请您操作";
    ToolFetchUrl => "Fetch a URL", "获取网址内容";
    ToolMemoryRead => "Read memory", "读取记忆";
    ToolMemoryWrite => "Write memory", "写入记忆";
    ToolLoadSkill => "Load a skill", "加载技能";
    ToolLoadTools => "Add tools", "添加工具";
    ToolDownload => "Download", "下载";
    ToolArtifactCreate => "Create a file", "创建文件";
    ToolWatchPage => "Watch the page", "关注页面变化";
    ToolScheduleResume => "Continue later", "稍后继续";
    /// An MCP server's tool.
    ToolMcp => "{tool} ({server})", "{tool}（{server}）";
    EngineEmptyMessage => "the message is empty", "消息为空";
    EngineNothingRunning => "nothing is running", "没有正在运行的任务";
    EngineNoUncertainCall => "no call is uncertain", "没有状态不明的调用";
    EngineNoThread => "thread {id} does not exist", "对话 {id} 不存在";
    EngineNoConnection => "connection {id} does not exist", "连接 {id} 不存在";
    EngineNoPreset => "preset {id} does not exist", "预设 {id} 不存在";
    EngineNoRule => "rule {id} does not exist", "规则 {id} 不存在";
    EngineNodeNotInThread => "node {node} is not in thread {id}", "节点 {node} 不在对话 {id} 中";
    EngineQueueFull => "{n} messages are already waiting in this thread", "此对话中已有 {n} 条消息在等待";
    EngineTurnOver => "turn {turn} is no longer running (now {now})", "回合 {turn} 已不在运行（当前为 {now}）";
    EngineNotQueued => "run {run} is not waiting in the queue of thread {id}", "任务 {run} 不在对话 {id} 的队列中";
    EngineNotWaiting => "run {run} of thread {id} is not waiting for that decision", "对话 {id} 的任务 {run} 并未在等待该决定";
    EngineThreadChanged => "thread changed (revision {old} is now {new}); reload it", "对话已更改（版本 {old} 现为 {new}），请重新加载";
    EngineTooManyConnections => "at most {n} connections can be stored", "最多只能保存 {n} 个连接";
    EngineTooManyRules => "at most {n} rules can be stored", "最多只能保存 {n} 条规则";
    EngineTooManyPresets => "at most {n} presets can be stored", "最多只能保存 {n} 个预设";
    EngineMemoryFull => "the memory is full ({n} notes): delete one before adding another", "记忆已满（{n} 条笔记）：请先删除一条再添加";
    EngineNoNote => "no note is saved under \"{key}\"", "没有名为“{key}”的笔记";
    EngineBadRule => "the rule is not valid: {error}", "规则无效：{error}";
    EngineTitleLength => "a title has 1 to {n} characters", "标题长度为 1 到 {n} 个字符";
    EnginePresetNameLength => "a preset name has 1 to {n} characters", "预设名称长度为 1 到 {n} 个字符";
    EngineInstructionsLength => "preset instructions have at most {n} characters", "预设指令最多 {n} 个字符";
    EngineTemperature => "the temperature is between 0 and {n}", "温度应在 0 到 {n} 之间";
    EngineNoConnections => "this host stores no connections", "此环境不保存连接";
    EngineTurnStopped => "The turn stopped: {message}", "本轮已停止：{message}";
    EngineDenied => "Denied by the user's permissions: {reason}. Do not retry it.", "被用户的权限设置拒绝：{reason}。";
    EngineNoTool => "There is no tool named `{tool}`.", "没有名为 `{tool}` 的工具。";
    EngineToolOff => "`{tool}` is not enabled for this turn.", "本轮未启用 `{tool}`。";
    EngineBadParams => "Invalid parameters: {error}. Fix them and call again.", "参数无效：{error}。";
    EngineConnectionOff => "the connection \"{name}\" is switched off in settings", "连接“{name}”已在设置中关闭";
    ProviderBadKey => "the server rejected the API key", "服务器拒绝了 API 密钥";
    ProviderFlagged => "the provider flagged the content", "服务商标记了该内容";
    ProviderForbidden => "the key is not allowed to do this", "该密钥无权执行此操作";
    ProviderQuota => "the credit, quota or budget of the key is used up", "该密钥的余额、配额或预算已用完";
    ProviderProxyKey => "the proxy rejected the API key (a LiteLLM proxy without a key database accepts only its master key)", "代理拒绝了 API 密钥（没有密钥数据库的 LiteLLM 代理只接受其主密钥）";
    ProviderNoModel => "the server does not know this model", "服务器不认识这个模型";
    ProviderNoApi => "there is no API at this address", "此地址上没有 API";
    ProviderRateLimit => "the provider is limiting the rate of requests", "服务商正在限制请求频率";
    ProviderOverloaded => "the provider is overloaded", "服务商负载过高";
    ProviderContext => "the conversation is longer than the model accepts", "对话长度超过了模型的上限";
    ProviderFiltered => "the provider filtered the content", "服务商过滤了该内容";
    ProviderTimeout => "the request timed out", "请求超时";
    ProviderRefused => "the server refused the request", "服务器拒绝了请求";
    ProviderFailed => "the provider failed on its side", "服务商端出错";
    ProviderOddStatus => "the server answered with an unexpected status", "服务器返回了意外的状态";
    ProviderUnreachable => "cannot reach the server", "无法连接服务器";
    ProviderBrokeOff => "the connection broke off during the answer", "回答过程中连接中断";
    ProviderCannotSend => "the request cannot be sent", "无法发送请求";
    ProviderSilent => "the provider sent nothing for {n} s", "服务商 {n} 秒没有任何响应";
    ProviderListSlow => "listing the models took longer than {n} s", "列出模型超过了 {n} 秒";
    ProviderNotStream => "the server answered with {type} instead of an event stream", "服务器返回的是 {type}，而不是事件流";
    ProviderSealed => "its stored keys cannot be opened (they were sealed in another profile or before a reinstall)", "无法打开已保存的密钥（它们是在其他配置文件中或重新安装之前保存的）";
    ProviderEmpty => "the response was empty", "响应为空";
    ProviderCutTool => "the answer reached the output token limit in the middle of a tool call", "回答在工具调用中途达到了输出 token 上限";
    ProviderAborted => "the call was aborted", "调用已中止";
    /// A status after a provider's conclusion.
    ProviderHttpStatus => "{text} (HTTP {status})", "{text}（HTTP {status}）";
    /// The same, for an error inside a stream.
    ProviderInStream => "{text} (reported while streaming)", "{text}（流式输出时报告）";
    AdviceKey => "Check the connection's API key in Settings.", "请在设置中检查该连接的 API 密钥。";
    AdvicePermission => "Check that this key may use the model, or add another key.", "请确认该密钥可以使用此模型，或添加其他密钥。";
    AdviceQuota => "Add credit or raise the budget with the provider, or add another key to the connection.", "请在服务商处充值或提高预算，或为该连接添加其他密钥。";
    AdviceBaseUrl => "Check the connection's base URL ({url}) in Settings.", "请在设置中检查该连接的 Base URL（{url}）。";
    AdviceModel => "Pick a model the server lists, in the connection's settings.", "请在该连接的设置中选择服务器列出的模型。";
    AdviceRequest => "If it happens again, check the connection's kind and its advanced settings.", "如果再次发生，请检查该连接的类型和高级设置。";
    AdviceUpstream => "The provider had a problem; try again in a moment.", "服务商出现问题，请稍后重试。";
    AdviceFormat => "Check that the server at {url} speaks the connection's kind (OpenAI-compatible or Anthropic).", "请确认 {url} 上的服务器使用该连接的类型（OpenAI 兼容或 Anthropic）。";
    AdviceBrokeOff => "The answer broke off; try again, and check the network if it keeps happening.", "回答中断了，请重试；如果反复出现，请检查网络。";
    AdviceUnreachable => "Check that the server is running and that the base URL ({url}) is right.", "请确认服务器正在运行，且 Base URL（{url}）正确。";
    AdviceStalled => "The server may be busy or still loading the model; try again.", "服务器可能正忙或仍在加载模型，请重试。";
    AdviceConnection => "Open the connection in Settings and check it.", "请在设置中打开并检查该连接。";
    AdviceRate => "Wait a moment, or add another key to the connection.", "请稍候，或为该连接添加其他密钥。";
    AdviceLater => "Try again in a moment.", "请稍后重试。";
    AdviceContext => "Start a new chat, or remove attachments from this one.", "请开始新对话，或移除此对话中的附件。";
    AdviceRephrase => "Rephrase the request.", "请换一种说法。";
    /// Options: the MCP servers section's title.
    McpServers => "Tool servers (MCP)", "工具服务器（MCP）";
    McpIntro => "Servers that speak the Model Context Protocol give the agent more tools. Each call is a write: your permission mode and rules decide it.", "使用模型上下文协议（MCP）的服务器可以为智能体提供更多工具。每次调用都算作写操作，由您的权限模式和规则决定。";
    McpAdd => "Add a server", "添加服务器";
    McpImportOpen => "Paste mcpServers JSON", "粘贴 mcpServers JSON";
    McpNone => "No tool servers yet. Add one by its URL, or paste the mcpServers JSON of Claude Code, Cursor or VS Code.", "还没有工具服务器。可以按 URL 添加，或粘贴 Claude Code、Cursor 或 VS Code 的 mcpServers JSON。";
    McpImportLabel => "mcpServers JSON", "mcpServers JSON";
    McpImportHint => "Remote servers (a url) can be added here; servers started by a command need the native host.", "远程服务器（带 url）可以在此添加；通过命令启动的服务器需要本地主机程序。";
    McpImportRead => "Preview", "预览";
    McpImportAdd => "Add selected", "添加所选";
    McpImportNeedsHost => "Needs the native host (not available in the browser)", "需要本地主机程序（浏览器中不可用）";
    McpImportNone => "The snippet lists no servers.", "该片段中没有服务器。";
    McpImportNotJson => "This is not JSON ({detail}).", "这不是 JSON（{detail}）。";
    McpImportNoServers => "No servers found: paste an object of servers, or one under \"mcpServers\" or \"servers\".", "未找到服务器：请粘贴服务器对象，或位于 \"mcpServers\" 或 \"servers\" 下的对象。";
    McpImportTooLarge => "The snippet is too large (at most 256 KB).", "片段过大（最多 256 KB）。";
    McpImportBadUrl => "its URL must start with https:// (or http:// for localhost or 127.0.0.1)", "其 URL 必须以 https:// 开头（localhost 或 127.0.0.1 可用 http://）";
    /// Options: a field of the server form.
    McpName => "Name", "名称";
    McpUrl => "Server URL", "服务器 URL";
    McpUrlHint => "The Streamable HTTP endpoint: https://, or http:// on localhost or 127.0.0.1.", "Streamable HTTP 端点：https://，或 localhost / 127.0.0.1 上的 http://。";
    McpAuth => "Sign-in", "身份验证";
    McpAuthNone => "None", "无";
    McpAuthBearer => "Bearer token", "Bearer 令牌";
    McpAuthOauth => "OAuth sign-in", "OAuth 登录";
    McpToken => "Bearer token", "Bearer 令牌";
    McpTokenSaved => "A token is saved", "已保存令牌";
    McpReplaceToken => "Replace", "替换";
    McpTokenHint => "Stored sealed, never shown again. Leave empty to keep the saved one.", "加密保存，不会再显示。留空则保留已保存的令牌。";
    McpClientId => "OAuth client id (optional)", "OAuth 客户端 ID（可选）";
    McpClientIdHint => "Without one, Panelot registers itself with the server's sign-in service.", "留空时，Panelot 会向服务器的登录服务自动注册。";
    McpConnectWhen => "When to connect", "连接时机";
    McpConnectStartup => "At startup", "启动时";
    McpConnectLazy => "On first use", "首次使用时";
    McpTimeout => "Call timeout (seconds)", "调用超时（秒）";
    McpTimeoutHint => "1–600; 60 when empty.", "1–600；留空为 60。";
    McpEnabled => "Use this server", "使用此服务器";
    McpSave => "Save server", "保存服务器";
    McpSaving => "Saving…", "正在保存…";
    /// Options: a stored server's card.
    McpStatusOff => "Off", "已关闭";
    McpStatusDisconnected => "Disconnected", "未连接";
    McpStatusConnecting => "Connecting…", "正在连接…";
    McpStatusReadyOne => "Ready · 1 tool", "就绪 · 1 个工具";
    McpStatusReady => "Ready · {n} tools", "就绪 · {n} 个工具";
    McpStatusNeedsAuth => "Needs sign-in", "需要登录";
    McpStatusError => "Error: {reason}", "错误：{reason}";
    McpConnect => "Connect", "连接";
    McpRetry => "Retry", "重试";
    McpSignIn => "Sign in", "登录";
    /// Under a server that needs a sign-in through an authorization server on other sites.
    McpSignInSites => "Sign in also asks your browser to let Panelot reach {sites}, where this server signs you in.", "登录时还会请浏览器允许 Panelot 访问 {sites}（此服务器在那里为你登录）。";
    McpSwitch => "Use {name}", "使用 {name}";
    McpConfirmDelete => "Delete “{name}”? Its tools and its sign-in go with it.", "删除“{name}”？其工具和登录信息也会一并删除。";
    McpShowDetails => "Tools and calls", "工具与调用";
    McpTools => "Tools", "工具";
    McpNoTools => "No tools listed yet: connect the server to see them.", "尚未列出工具：连接服务器后即可查看。";
    /// MCP server details: what its offered tools cost in every model call.
    McpToolsCost => "Its tools add about {n} tokens to every model call.", "其工具会为每次模型调用增加约 {n} 个 token。";
    McpToolSwitch => "Offer {tool} to the model", "向模型提供 {tool}";
    McpRecentCalls => "Recent calls", "最近的调用";
    McpNoCalls => "No calls yet.", "还没有调用。";
    McpOutcomeOk => "Done", "完成";
    McpOutcomeError => "Failed", "失败";
    McpOutcomeDenied => "Denied", "已拒绝";
    McpOutcomeCancelled => "Cancelled", "已取消";
    /// A form problem: a token with a space inside.
    FieldBadToken => "{field}: no spaces or line breaks.", "{field}：不能包含空格或换行。";
    /// What the server said, after a check's diagnosis.
    ServerSaid => "The server said: “{said}”", "服务器返回：“{said}”";
}

mod engine;

pub use engine::engine_text;
pub use engine::tool_title;

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
