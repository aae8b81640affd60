// Panelot page executor, injected on demand with chrome.scripting.executeScript.
//
// Every type of its protocol comes from ./generated/protocol.ts, generated from the Rust types;
// nothing here re-declares them. Requests are served one at a time, each with its deadline.

import {
  CONTENT_PROTOCOL,
  CONTENT_SCHEMA_HASH,
  type ActionFailure,
  type ContentOutcome,
  type ContentRequest,
  type ContentResponse,
  type RequestId,
} from "./generated/protocol";

declare global {
  // Set once per document, so a second injection is a no-op.
  var __panelotExecutor: { documentId: string } | undefined;
}

function failure(code: ActionFailure["code"], message: string): ContentOutcome {
  return {
    status: "failed",
    failure: { code, message, phase: "resolve", retryable: false, details: null },
  };
}

function respond(requestId: RequestId, outcome: ContentOutcome): ContentResponse {
  return { protocol: CONTENT_PROTOCOL, requestId, outcome };
}

function isRequest(message: unknown): message is ContentRequest {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  return typeof m.requestId === "string" && typeof m.op === "object" && m.op !== null;
}

function serve(request: ContentRequest, documentId: string): ContentOutcome {
  if (request.protocol !== CONTENT_PROTOCOL || request.schemaHash !== CONTENT_SCHEMA_HASH) {
    return failure("unknown", "executor protocol mismatch: reload the page");
  }
  if (Date.now() > request.deadlineAtMs) {
    return failure("timeout", "the request's deadline passed before it started");
  }
  switch (request.op.kind) {
    case "ping":
      return { status: "pong", documentId };
    case "cancel":
      return { status: "cancelled" };
    case "execute":
      return failure("unknown", `tool ${request.op.call.tool} is not available in this executor build`);
  }
}

function install(): void {
  if (globalThis.__panelotExecutor) return;
  const documentId = crypto.randomUUID();
  globalThis.__panelotExecutor = { documentId };
  chrome.runtime.onMessage.addListener((message: unknown, _sender, sendResponse) => {
    if (!isRequest(message)) return false;
    sendResponse(respond(message.requestId, serve(message, documentId)));
    return false;
  });
}

install();
