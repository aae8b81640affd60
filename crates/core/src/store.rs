//! Durable state behind one trait: reads, and atomic units of work.
//!
//! A write is a [`UnitOfWork`] computed up front and applied in one transaction, because an
//! IndexedDB transaction cannot stay open across other awaits. Every multi-record write point of
//! the engine (turn start, provider completion, approval request, decision plus receipt, tool
//! result plus next run state, delete cascade plus receipt) is one unit.
//!
//! Implementations: [`MemoryStore`] here, `panelot-store-sqlite` natively, IndexedDB in the
//! extension. All of them pass the same conformance suite (`conformance`, behind the
//! `conformance` feature).

mod backend;
mod cache;
mod format;
mod memory;
mod records;
mod runs;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;

pub use backend::*;
pub use cache::CachedStore;
pub use format::FORMAT_VERSION;
pub use format::decode_attachment;
pub use format::decode_node;
pub use format::decode_receipt;
pub use format::decode_run;
pub use format::decode_thread;
pub use format::encode_attachment;
pub use format::encode_node;
pub use format::encode_receipt;
pub use format::encode_run;
pub use format::encode_thread;
pub use memory::MemoryStore;
pub use records::*;
pub use runs::*;

#[cfg(test)]
mod tests {
    #[test]
    fn memory_store_passes_the_conformance_suite() {
        super::conformance::run_all(super::MemoryStore::new);
    }
}
