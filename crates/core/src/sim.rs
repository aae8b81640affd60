//! The engine under test: a scripted world ([`world`]) around the real driver; turn, target,
//! web-tool, memory, notification and page-opening tests through it; and the simulation
//! (seeded schedules, crashes at unit-of-work boundaries, restarts, tabs that move under the
//! engine, invariants).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stderr)]

mod world;

#[cfg(test)]
mod turn_tests;

#[cfg(test)]
mod sim_tests;

#[cfg(test)]
mod target_tests;

#[cfg(test)]
mod takeover_tests;

#[cfg(test)]
mod web_tests;

#[cfg(test)]
mod mcp_tests;

#[cfg(test)]
mod memory_tests;

#[cfg(test)]
mod notice_tests;

#[cfg(test)]
mod opens_tests;

#[cfg(test)]
mod files_tests;

#[cfg(test)]
mod upload_tests;

#[cfg(test)]
mod cost_tests;

#[cfg(test)]
mod wait_tests;
