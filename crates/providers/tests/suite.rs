//! The integration suites.

mod bad_input;
mod client_keys;
mod client_models;
mod client_stream;
mod corpus;
mod harness;
mod replay;
