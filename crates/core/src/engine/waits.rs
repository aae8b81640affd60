//! What a waiting run waits for, read from its interaction request alone: the user (a question,
//! a step, a form) or something that ends by itself (a page, a time), and when. Kept apart from
//! the interaction machinery so the run table can ask without depending on it.

use panelot_protocol::engine::InteractionRequestPayload;

/// Whether the request waits for the user (a question, a step), not for a page or a time: only
/// those make a thread "wait for you" and send notifications.
pub(crate) fn asks_user(request: &InteractionRequestPayload) -> bool {
    match request {
        InteractionRequestPayload::AskUser { .. }
        | InteractionRequestPayload::RequestUserAction { .. }
        | InteractionRequestPayload::McpElicitation { .. } => true,
        InteractionRequestPayload::WatchPage { .. }
        | InteractionRequestPayload::ScheduleResume { .. } => false,
    }
}

/// When the wait ends by itself: a watch's deadline, a schedule's time.
pub(crate) fn due_at(request: &InteractionRequestPayload) -> Option<u64> {
    match request {
        InteractionRequestPayload::WatchPage { deadline_at_ms, .. } => Some(*deadline_at_ms),
        InteractionRequestPayload::ScheduleResume { resume_at_ms, .. } => Some(*resume_at_ms),
        InteractionRequestPayload::AskUser { .. }
        | InteractionRequestPayload::RequestUserAction { .. }
        | InteractionRequestPayload::McpElicitation { .. } => None,
    }
}
