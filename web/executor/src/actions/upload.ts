// upload_file: puts a file the user attached on a file input. The bytes arrive with the call
// (base64, handed over by the engine) and go on the input through a DataTransfer, the one way a
// page script can give an input a file it did not pick itself: CDP's DOM.setFileInputFiles takes
// paths on the local disk, and the extension holds the file only in memory.

import type { ActionEvidence, UploadFileParams } from "../generated/protocol";
import { ExecutorError } from "../failure";
import type { RefRegistry } from "../refs";
import { withEvidence } from "./evidence";
import { highlight } from "./highlight";
import type { SettleTiming } from "./settle";

/** Sets the file on the input the ref names (or the one its label or button is tied to). */
export async function uploadFile(registry: RefRegistry, params: UploadFileParams, timing: SettleTiming, signal: AbortSignal): Promise<ActionEvidence> {
  const el = registry.resolve(params.ref);
  const input = fileInputOf(el);
  if (!input) {
    throw new ExecutorError("invalid_target", "resolve", "the element is not a file input, nor a label or button tied to one; name the <input type=file> (or its label)", false);
  }
  if (input.disabled) throw new ExecutorError("invalid_target", "resolve", "the file input is disabled", false);
  const accept = input.accept.trim();
  if (accept && !accepts(accept, params.name, params.mime)) {
    throw new ExecutorError("invalid_target", "resolve", `the file input accepts ${JSON.stringify(accept)}; ${params.name} (${params.mime}) is not among them`, false, { accept });
  }
  const bytes = decode(params.dataBase64);
  // A hidden input (styled behind its label) is the usual case: its label or button is what
  // the user sees, so that is what is highlighted.
  highlight(input.getClientRects().length > 0 ? input : el);
  return withEvidence(timing, signal, () => {
    const realm = (input.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
    const file = new realm.File([bytes], params.name, { type: params.mime });
    const transfer = new realm.DataTransfer();
    transfer.items.add(file);
    input.files = transfer.files;
    input.dispatchEvent(new realm.Event("input", { bubbles: true, composed: true }));
    input.dispatchEvent(new realm.Event("change", { bubbles: true }));
    const set = input.files?.[0];
    if (!set || set.name !== params.name || set.size !== bytes.length) {
      throw new ExecutorError("l1_not_effective", "verify", "the file input did not keep the file", false);
    }
    const observed = [`the file input now holds ${JSON.stringify(set.name)} (${set.size} bytes, ${set.type || "no type"})`];
    if (input.multiple) observed.push("it takes several files; this call set one (the files it held before were replaced)");
    return { effect: "verified", observed };
  });
}

/** The file input `el` is, labels, or holds (one only); a button counts through its label. */
function fileInputOf(el: Element): HTMLInputElement | null {
  const isFile = (node: Element | null | undefined): node is HTMLInputElement => node instanceof HTMLInputElement && node.type === "file";
  if (isFile(el)) return el;
  const label = el instanceof HTMLLabelElement ? el : el.closest("label");
  if (label && isFile(label.control)) return label.control;
  const inside = el.querySelectorAll("input[type=file]");
  if (inside.length === 1 && isFile(inside[0])) return inside[0];
  return null;
}

/** Whether a file of this name and type fits an `accept` list (extensions, types, `type/*`). */
function accepts(accept: string, name: string, mime: string): boolean {
  const lowerName = name.toLowerCase();
  const lowerMime = mime.toLowerCase();
  return accept
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item.length > 0)
    .some((item) => {
      if (item.startsWith(".")) return lowerName.endsWith(item);
      if (item.endsWith("/*")) return lowerMime.startsWith(item.slice(0, -1));
      return lowerMime === item;
    });
}

function decode(base64: string): Uint8Array<ArrayBuffer> {
  let text: string;
  try {
    text = atob(base64);
  } catch {
    throw new ExecutorError("invalid_target", "resolve", "the file's bytes are not base64", false);
  }
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
