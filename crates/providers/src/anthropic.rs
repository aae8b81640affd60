//! The Anthropic `messages` wire format: [`build_request`] and [`AnthropicStream`].

mod request;
mod stream;

pub use request::ANTHROPIC_VERSION;
pub use request::DEFAULT_MAX_TOKENS;
pub use request::MESSAGES_PATH;
pub use request::build_request;
pub use stream::AnthropicStream;
