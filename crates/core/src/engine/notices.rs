//! What a browser notification says when a thread needs the user while no view shows it: an
//! approval, a question, a step handed over, or a long turn that ended. Without one, a run
//! started from the panel and left in the background would wait unseen until its approval's
//! deadline declined it.

use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::Language;

use super::outbox::Notice;

/// Characters of the model's words quoted in a notice.
const QUOTED_CHARS: usize = 160;

/// A turn that ran at least this long (waiting for the user included) says when it ends.
pub(crate) const LONG_TURN_MS: u64 = 60_000;

/// What a thread waits for, most pressing first.
pub(crate) enum Waiting<'a> {
    /// An approval of a call.
    Approval(&'a ApprovalRequestPayload),
    /// A question or a step handed to the user.
    Interaction(&'a InteractionRequestPayload),
    /// Nothing more: a long turn ended.
    Finished,
    /// An MCP server's sign-in ran out during a run.
    SignIn(&'a str),
}

/// The notice for a thread titled `title` that waits for `what`.
pub(crate) fn notice(language: Language, title: &str, what: &Waiting<'_>) -> Notice {
    let chinese = language == Language::SimplifiedChinese;
    let message = match what {
        Waiting::Approval(request) => {
            let place = request.target_origin.as_deref().unwrap_or_default();
            match (chinese, place.is_empty()) {
                (false, false) => format!("Panelot asks before it acts on {place}."),
                (false, true) => "Panelot asks before it goes on.".to_owned(),
                (true, false) => format!("Panelot 在操作 {place} 之前需要你的批准。"),
                (true, true) => "Panelot 需要你的批准才能继续。".to_owned(),
            }
        }
        Waiting::Interaction(InteractionRequestPayload::RequestUserAction {
            instruction, ..
        }) => {
            let said: String = instruction.chars().take(QUOTED_CHARS).collect();
            if chinese {
                format!("请你完成一个步骤：{said}")
            } else {
                format!("Your turn: {said}")
            }
        }
        Waiting::Interaction(_) => {
            if chinese {
                "Panelot 有问题要问你。".to_owned()
            } else {
                "Panelot has a question for you.".to_owned()
            }
        }
        Waiting::SignIn(server) => {
            if chinese {
                format!("请在设置中重新登录 MCP 服务器 {server}，然后继续。")
            } else {
                format!("Sign in to the MCP server {server} again in Settings, then carry on.")
            }
        }
        Waiting::Finished => {
            if chinese {
                "Panelot 完成了这次任务。".to_owned()
            } else {
                "Panelot finished this task.".to_owned()
            }
        }
    };
    let title = if title.trim().is_empty() { "Panelot".to_owned() } else { title.to_owned() };
    Notice { title, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_says_what_the_thread_waits_for() {
        let question = InteractionRequestPayload::AskUser { questions: Vec::new() };
        let asked = notice(Language::English, "Order shoes", &Waiting::Interaction(&question));
        assert_eq!(
            asked,
            Notice {
                title: "Order shoes".into(),
                message: "Panelot has a question for you.".into()
            }
        );
        let step = InteractionRequestPayload::RequestUserAction {
            instruction: "Sign in to shop.example, then press Done.".into(),
            tab_id: None,
        };
        let handed = notice(Language::SimplifiedChinese, "", &Waiting::Interaction(&step));
        assert_eq!(handed.title, "Panelot");
        assert_eq!(handed.message, "请你完成一个步骤：Sign in to shop.example, then press Done.");
    }
}
