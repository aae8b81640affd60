//! TypeScript declarations of the page-executor protocol, generated from the Rust types with
//! ts-rs. `cargo xtask protocol --write` writes them to `web/executor/src/generated/protocol.ts`;
//! a test fails when that file is stale.

use ts_rs::Config;
use ts_rs::TS;

use super::*;
use crate::ids::ElementRef;
use crate::ids::RequestId;
use crate::ids::SnapshotId;
use crate::schema_hashes::CONTENT_SCHEMA_HASH;

/// Where the generated file lives, relative to the workspace root.
pub const TYPESCRIPT_PATH: &str = "web/executor/src/generated/protocol.ts";

macro_rules! declarations {
    ($cfg:ident; $($ty:ty),* $(,)?) => {
        vec![$( (<$ty as TS>::name(&$cfg), <$ty as TS>::decl(&$cfg), dependency_names::<$ty>(&$cfg)), )*]
    };
}

fn dependency_names<T: TS + ?Sized + 'static>(cfg: &Config) -> Vec<String> {
    T::dependencies(cfg).into_iter().map(|dep| dep.ts_name).collect()
}

/// Every declared type: its name, declaration and the names it refers to.
fn declared_types() -> Vec<(String, String, Vec<String>)> {
    // u64 fields hold millisecond timestamps and counts far below 2^53.
    let cfg = Config::new().with_large_int("number");
    declarations![cfg;
        RequestId, ElementRef, SnapshotId,
        ContentRequest, ContentOp, ContentResponse, ContentOutcome,
        ActionFailure, ActionFailureCode, ActionPhase,
        ExecutorCall, EmptyParams, RefParams, ReadPageParams, MouseButton, ClickParams, TypeMode,
        TypeParams, SelectOptionParams, UploadFileParams, PressKeyParams, ScrollDirection, ScrollAmount, ScrollParams,
        WaitForParams, ExtractParams, FindInPageParams, BatchActionsParams, BatchAction,
        ExecutorResult, SnapshotResult, ActionResult, ActionEvidence, PageDialog,
        DialogKind, EffectState, ExtractResult,
        FindResult, FindHit, SelectionResult, BatchResult, RectResult, RefStatusResult,
        ExpectedTarget, DescribeTargetParams, DescribeItem, TargetDescription, ElementDescription,
        Destination, DestinationKind, FormMethod, HighlightParams, HighlightResult,
        LabelRefsParams, LabelsResult,
    ]
}

/// The generated TypeScript module.
pub fn executor_typescript() -> String {
    let mut out = String::from(
        "// Generated from the Rust types in crates/protocol by `cargo xtask protocol --write`.\n\
         // Do not edit by hand.\n\n",
    );
    out.push_str(&format!("export const CONTENT_PROTOCOL = \"{CONTENT_PROTOCOL}\";\n"));
    out.push_str(&format!("export const CONTENT_SCHEMA_HASH = \"{CONTENT_SCHEMA_HASH}\";\n"));
    out.push_str(&format!("export const SNAPSHOT_DEFAULT_TOKENS = {SNAPSHOT_DEFAULT_TOKENS};\n"));
    out.push_str(&format!("export const SNAPSHOT_MAX_TOKENS = {SNAPSHOT_MAX_TOKENS};\n"));
    out.push_str(&format!("export const BATCH_MAX_ACTIONS = {BATCH_MAX_ACTIONS};\n"));
    out.push_str(&format!("export const WAIT_FOR_MAX_MS = {WAIT_FOR_MAX_MS};\n"));
    out.push_str(&format!("export const FIND_MAX_HITS = {FIND_MAX_HITS};\n"));
    out.push_str(&format!("export const DIALOGS_MAX = {DIALOGS_MAX};\n"));
    out.push_str(&format!("export const DIALOG_EVENT = \"{DIALOG_EVENT}\";\n"));
    out.push_str(&format!("export const DIALOG_MESSAGE_MAX_CHARS = {DIALOG_MESSAGE_MAX_CHARS};\n"));
    out.push_str(&format!("export const TARGET_TEXT_MAX_CHARS = {TARGET_TEXT_MAX_CHARS};\n"));
    out.push_str(&format!("export const TARGET_URL_MAX_CHARS = {TARGET_URL_MAX_CHARS};\n"));
    out.push_str(&format!(
        "export const HIGHLIGHT_LABEL_MAX_CHARS = {HIGHLIGHT_LABEL_MAX_CHARS};\n"
    ));
    out.push_str(&format!("export const LABELS_MAX = {LABELS_MAX};\n"));
    for (_, decl, _) in declared_types() {
        out.push_str("\nexport ");
        out.push_str(&decl);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_referenced_type_is_declared() {
        let types = declared_types();
        let declared: BTreeSet<&str> = types.iter().map(|(name, _, _)| name.as_str()).collect();
        for (name, _, deps) in &types {
            for dep in deps {
                assert!(declared.contains(dep.as_str()), "{name} refers to undeclared {dep}");
            }
        }
    }

    #[test]
    fn checked_in_typescript_is_current() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(TYPESCRIPT_PATH);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == executor_typescript(),
            "{} is stale: run `cargo xtask protocol --write` and commit",
            path.display()
        );
    }
}
