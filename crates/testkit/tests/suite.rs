//! Integration suites.

mod http_client;
mod mock_provider;
mod sites;
