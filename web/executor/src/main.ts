// Panelot page executor, injected on demand with chrome.scripting.executeScript.
//
// Every type of its protocol comes from ./generated/protocol.ts, generated from the Rust types;
// nothing here re-declares them. Requests are served one at a time, each with its deadline;
// `ping` and `cancel` are answered at once, outside the queue.

import {
  CONTENT_PROTOCOL,
  CONTENT_SCHEMA_HASH,
  type ContentOutcome,
  type ContentRequest,
  type ContentResponse,
  type ExecutorCall,
  type RequestId,
} from "./generated/protocol";
import { listenForDialogs } from "./dialogs";
import { toFailure, ExecutorError } from "./failure";
import { randomId } from "./ids";
import { RequestQueue } from "./queue";
import { RefRegistry } from "./refs";
import { Snapshotter } from "./snapshot";
import { checkExpected } from "./target";
import { runCall, type Executor } from "./tools";

declare global {
  // Set once per document, so a second injection is a no-op.
  var __panelotExecutor: { documentId: string } | undefined;
}

function respond(requestId: RequestId, outcome: ContentOutcome, handledMs: number | null = null): ContentResponse {
  return { protocol: CONTENT_PROTOCOL, requestId, outcome, handledMs };
}

function isRequest(message: unknown): message is ContentRequest {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  return typeof m.requestId === "string" && typeof m.op === "object" && m.op !== null && typeof m.deadlineAtMs === "number";
}

/** Whether a call names an element by ref (its own, a scope, one in a batch or a describe). */
function carriesRef(call: ExecutorCall): boolean {
  const params = call.params as Record<string, unknown>;
  if (typeof params.ref === "string" || typeof params.scopeRef === "string") return true;
  if (call.tool === "describe_target") return call.params.targets.length > 0;
  return call.tool === "batch_actions" && call.params.actions.length > 0;
}

function install(): void {
  if (globalThis.__panelotExecutor) return;
  const documentId = randomId();
  globalThis.__panelotExecutor = { documentId };
  const registry = new RefRegistry();
  const executor: Executor = { documentId, registry, snapshots: new Snapshotter(registry, documentId) };
  const queue = new RequestQueue();
  listenForDialogs();

  chrome.runtime.onMessage.addListener((message: unknown, _sender, sendResponse) => {
    if (!isRequest(message)) return false;
    const reply = (outcome: ContentOutcome, handledMs: number | null = null): void => sendResponse(respond(message.requestId, outcome, handledMs));
    if (message.protocol !== CONTENT_PROTOCOL || message.schemaHash !== CONTENT_SCHEMA_HASH) {
      reply({ status: "failed", failure: toFailure(new ExecutorError("unknown", "resolve", "executor protocol mismatch: reload the page")) });
      return false;
    }
    const op = message.op;
    switch (op.kind) {
      case "ping":
        reply({ status: "pong", documentId });
        return false;
      case "cancel":
        queue.cancel(op.targetRequestId);
        reply({ status: "cancelled" });
        return false;
      case "execute":
        // The document and origin the call was judged for come first: a call meant for another
        // page is refused as such, not as a stale ref.
        if (message.expected != null) {
          try {
            checkExpected(message.expected, documentId);
          } catch (err) {
            reply({ status: "failed", failure: toFailure(err, "resolve") });
            return false;
          }
        }
        if (message.refDocumentId != null && message.refDocumentId !== documentId && carriesRef(op.call)) {
          const stale = new ExecutorError("stale_ref", "resolve", "the refs are from an earlier page: the tab has navigated since that snapshot, take a new one");
          reply({ status: "failed", failure: toFailure(stale) });
          return false;
        }
        {
          let handledMs: number | null = null;
          void queue
            .submit(message.requestId, message.deadlineAtMs, async (signal) => {
              const started = performance.now();
              try {
                return { status: "ok", result: await runCall(executor, op.call, signal) };
              } finally {
                handledMs = performance.now() - started;
              }
            })
            .then((outcome) => reply(outcome, handledMs));
        }
        return true;
    }
  });
}

install();
