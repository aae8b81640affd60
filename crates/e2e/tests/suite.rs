//! End-to-end suites.

mod handshake;
