//! The Anthropic `messages` wire format.
