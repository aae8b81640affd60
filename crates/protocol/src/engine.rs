//! The engine protocol `panelot/engine-v1`: Ops in, AgentEvents out, over a UI's port.

mod codes;
mod events;
mod input;
mod mcp;
mod ops;
mod requests;
mod settings;
mod thread;

pub use codes::*;
pub use events::*;
pub use input::*;
pub use mcp::*;
pub use ops::*;
pub use requests::*;
pub use settings::*;
pub use thread::*;
