//! Version 1 of the stored records: serde types of the storage format's own, and their
//! conversions to and from the engine's records.
//!
//! Each top-level record (run, node, thread meta, receipt, attachment) starts with `"v": 1`. The JSON is the
//! one records had before they carried a version (field names, enum texts, tags), except that
//! every field is written and every field that is not optional must be there: the defaults old
//! builds left out are filled in by the migration from version 0. An optional field that is
//! absent reads as null (serde's rule, in every version).
//!
//! Types the engine owns only for storage ([`crate::taint::TaintLedger`],
//! [`crate::target::RunRoute`], [`crate::target::ResolvedTarget`]) are embedded with their own
//! serde; a change to them is a change of this format.
//!
//! Each conversion builds every field of what it makes, and its matches on enums are
//! exhaustive: a field or variant added on either side does not compile until the format says
//! how it is stored.

mod attachment;
mod codes;
mod input;
mod node;
mod receipt;
mod requests;
mod run;
mod thread;
mod version;

pub(crate) use self::attachment::StoredAttachment;
pub(crate) use self::node::StoredNode;
pub(crate) use self::receipt::StoredReceipt;
pub(crate) use self::run::StoredRun;
pub(crate) use self::thread::StoredThread;
