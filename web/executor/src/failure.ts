// Structured failures: every way a call can fail is an ExecutorError with a wire code and phase.

import type { ActionFailure, ActionFailureCode, ActionPhase } from "./generated/protocol";

/** A failure the executor reports as `ActionFailure`, never as a bare exception. */
export class ExecutorError extends Error {
  constructor(
    readonly code: ActionFailureCode,
    readonly phase: ActionPhase,
    message: string,
    readonly retryable = false,
    readonly details: unknown = null,
  ) {
    super(message);
  }
}

/** Converts anything thrown into the wire failure; unknown exceptions become `unknown`. */
export function toFailure(err: unknown, phase: ActionPhase = "execute"): ActionFailure {
  if (err instanceof ExecutorError) {
    return { code: err.code, message: err.message, phase: err.phase, retryable: err.retryable, details: err.details };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: "unknown", message: `executor error: ${message}`, phase, retryable: false, details: null };
}
