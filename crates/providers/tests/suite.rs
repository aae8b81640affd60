//! The integration suites.

mod bad_input;
mod client_keys;
mod client_models;
mod client_stream;
mod corpus;
mod harness;
mod local_servers;
mod proxies;
mod replay;
