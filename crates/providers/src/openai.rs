//! The OpenAI-compatible `chat/completions` wire format: [`build_request`] and [`OpenAiStream`].
//!
//! Used for OpenAI itself and for every compatible server (OpenRouter, DeepSeek, Moonshot,
//! Zhipu, DashScope, Ollama, LM Studio, llama.cpp, vLLM); their differences are [`Quirks`].
//!
//! [`Quirks`]: crate::Quirks

mod request;
mod stream;
mod think;
mod wire;

pub use request::CHAT_COMPLETIONS_PATH;
pub use request::build_request;
pub(crate) use request::effort_name;
pub use stream::OpenAiStream;
