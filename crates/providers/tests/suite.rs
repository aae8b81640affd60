//! The integration suites.

mod bad_input;
mod corpus;
mod replay;
