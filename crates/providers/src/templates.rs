//! Connection templates.
