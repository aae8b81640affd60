// A serial request queue: one call runs at a time, each bounded by its absolute deadline and
// cancellable while queued or running (running work checks its AbortSignal at every await).

import type { ContentOutcome, RequestId } from "./generated/protocol";
import { ExecutorError, toFailure } from "./failure";

/** One unit of work; it must honour `signal`. */
export type Job = (signal: AbortSignal) => Promise<ContentOutcome>;

interface Entry {
  requestId: RequestId;
  deadlineAtMs: number;
  job: Job;
  controller: AbortController;
  resolve: (outcome: ContentOutcome) => void;
}

export class RequestQueue {
  private readonly waiting: Entry[] = [];
  private running: Entry | null = null;

  /** Queues a job; the promise settles with its outcome (never rejects). */
  submit(requestId: RequestId, deadlineAtMs: number, job: Job): Promise<ContentOutcome> {
    return new Promise((resolve) => {
      this.waiting.push({ requestId, deadlineAtMs, job, controller: new AbortController(), resolve });
      void this.pump();
    });
  }

  /** Cancels a queued or running request; returns whether it was found. */
  cancel(requestId: RequestId): boolean {
    const idx = this.waiting.findIndex((e) => e.requestId === requestId);
    if (idx >= 0) {
      const [entry] = this.waiting.splice(idx, 1);
      entry?.resolve({ status: "cancelled" });
      return true;
    }
    if (this.running?.requestId === requestId) {
      this.running.controller.abort(new ExecutorError("aborted", "execute", "cancelled"));
      return true;
    }
    return false;
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    const entry = this.waiting.shift();
    if (!entry) return;
    this.running = entry;
    try {
      entry.resolve(await run(entry));
    } finally {
      this.running = null;
      void this.pump();
    }
  }
}

async function run(entry: Entry): Promise<ContentOutcome> {
  const remaining = entry.deadlineAtMs - Date.now();
  if (remaining <= 0) {
    return { status: "failed", failure: toFailure(new ExecutorError("timeout", "resolve", "the request's deadline passed before it started", true)) };
  }
  const { controller } = entry;
  const timer = setTimeout(
    () => controller.abort(new ExecutorError("timeout", "execute", "the request's deadline passed", true)),
    remaining,
  );
  const aborted = new Promise<ContentOutcome>((resolve) => {
    controller.signal.addEventListener("abort", () => {
      const reason: unknown = controller.signal.reason;
      if (reason instanceof ExecutorError && reason.code === "aborted") resolve({ status: "cancelled" });
      else resolve({ status: "failed", failure: toFailure(reason) });
    });
  });
  try {
    return await Promise.race([
      entry.job(controller.signal).catch((err: unknown): ContentOutcome => ({ status: "failed", failure: toFailure(err) })),
      aborted,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sleeps, waking early (by throwing) when the signal fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new ExecutorError("aborted", "execute", "cancelled"));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new ExecutorError("aborted", "execute", "cancelled"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
