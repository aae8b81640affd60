// Element refs: `e<N>`, allocated from one counter per document and never reused, so the same
// element keeps its ref across snapshots and a removed element's ref can only be stale. Which
// document a ref belongs to is kept by the engine (the documentId of every snapshot, never shown
// to the model) and checked in main.ts against the request's `refDocumentId`.

import { ExecutorError } from "./failure";

export class RefRegistry {
  private next = 1;
  private readonly byElement = new WeakMap<Element, string>();
  private readonly byRef = new Map<string, WeakRef<Element>>();

  /** The element's ref, allocating one the first time. */
  refFor(el: Element): string {
    let ref = this.byElement.get(el);
    if (ref === undefined) {
      ref = `e${this.next++}`;
      this.byElement.set(el, ref);
      this.byRef.set(ref, new WeakRef(el));
    }
    return ref;
  }

  /** The element's ref if it has one, else the one it would get next (for cost estimates). */
  peek(el: Element): string {
    return this.byElement.get(el) ?? `e${this.next}`;
  }

  /** The element behind a ref, or `stale_ref` when it is unknown here or left the document. */
  resolve(raw: string): Element {
    const ref = normalizeRef(raw);
    const el = this.byRef.get(ref)?.deref();
    if (!el) {
      throw new ExecutorError("stale_ref", "resolve", `ref ${ref} is not on this page (an older page or snapshot): take a new snapshot`);
    }
    if (!el.isConnected) {
      this.byRef.delete(ref);
      throw new ExecutorError("stale_ref", "resolve", `the element of ref ${ref} was removed from the page: take a new snapshot`);
    }
    return el;
  }

  /** Every ref whose element is still in the document, oldest first. */
  *live(): Generator<[string, Element]> {
    for (const [ref, weak] of this.byRef) {
      const el = weak.deref();
      if (el?.isConnected) yield [ref, el];
    }
  }

  /** Whether the ref resolves to an element still in the document. */
  isValid(raw: string): boolean {
    const el = this.byRef.get(normalizeRef(raw))?.deref();
    return el !== undefined && el.isConnected;
  }
}

/**
 * Accepts `e12`, `[e12]` and `ref=e12`, and a frame's ref as the extension shows it (`f3e12`:
 * the extension sends it to frame 3's executor, where it is `e12`).
 */
export function normalizeRef(raw: string): string {
  return raw.trim().replace(/^\[/, "").replace(/\]$/, "").replace(/^ref=/, "").replace(/^f\d+(?=e\d)/, "");
}
