// Write actions: click, hover, type, select_option, press_key. Each resolves its ref, checks
// actionability, highlights the target, dispatches, verifies what it can, and settles.

import type { ActionEvidence, ClickParams, PressKeyParams, RefParams, SelectOptionParams, TypeParams } from "../generated/protocol";
import { ExecutorError } from "../failure";
import type { RefRegistry } from "../refs";
import { sleep } from "../queue";
import { ensureActionable } from "./actionability";
import { clickAt, focusElement, hoverAt, keyDown, keyUp, parseChord } from "./events";
import { withEvidence, type Effect } from "./evidence";
import { highlight } from "./highlight";
import type { SettleTiming } from "./settle";

/** Click with the left or right button, once or twice. */
export async function click(registry: RefRegistry, params: ClickParams, timing: SettleTiming, signal: AbortSignal): Promise<ActionEvidence> {
  const el = registry.resolve(params.ref);
  const point = await ensureActionable(el, "click", signal);
  highlight(el);
  return withEvidence(timing, signal, () => {
    const checkedBefore = (el as HTMLInputElement).checked;
    clickAt(el, point, params.button ?? "left", params.doubleClick ?? false);
    const observed: string[] = [];
    if (el.tagName === "INPUT" && (el as HTMLInputElement).checked !== checkedBefore) {
      observed.push((el as HTMLInputElement).checked ? "it is now checked" : "it is now unchecked");
      return { effect: "verified", observed };
    }
    return { effect: "dispatched", observed };
  });
}

/** Hover. */
export async function hover(registry: RefRegistry, params: RefParams, timing: SettleTiming, signal: AbortSignal): Promise<ActionEvidence> {
  const el = registry.resolve(params.ref);
  const point = await ensureActionable(el, "any", signal);
  highlight(el);
  return withEvidence(timing, signal, () => {
    hoverAt(el, point);
    return { effect: "dispatched", observed: [] };
  });
}

/** Type text: replace (default) or append, one go or slowly, then submit if asked. */
export async function typeText(registry: RefRegistry, params: TypeParams, timing: SettleTiming, signal: AbortSignal): Promise<ActionEvidence> {
  const el = registry.resolve(params.ref);
  await ensureActionable(el, "edit", signal);
  highlight(el);
  return withEvidence(timing, signal, async () => {
    focusElement(el);
    const append = params.mode === "append";
    const before = currentText(el);
    const expected = append ? before + params.text : params.text;
    if (params.slowly) {
      if (!append) setText(el, "", "deleteContentBackward", null);
      for (const ch of params.text) {
        const chord = { key: ch, ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
        const allowed = keyDown(el, chord);
        if (allowed) setText(el, currentText(el) + ch, "insertText", ch);
        keyUp(el, chord);
        await sleep(20, signal);
      }
    } else {
      setText(el, expected, "insertText", params.text);
    }
    el.dispatchEvent(new ((el.ownerDocument.defaultView ?? window) as Window & typeof globalThis).Event("change", { bubbles: true }));
    const after = currentText(el);
    const observed: string[] = [];
    if (after !== expected) {
      throw new ExecutorError("l1_not_effective", "verify", `the field did not take the text (it holds ${JSON.stringify(after.slice(0, 80))}); a trusted type may work`, true, { value: after.slice(0, 200) });
    }
    observed.push(isPassword(el) ? "the password field is filled" : `the field now holds ${JSON.stringify(after.slice(0, 80))}`);
    if (params.submit) observed.push(...submitFrom(el));
    return { effect: "verified", observed } satisfies Effect;
  });
}

/** Choose options of a select by value or visible text; lists the options when none match. */
export async function selectOption(registry: RefRegistry, params: SelectOptionParams, timing: SettleTiming, signal: AbortSignal): Promise<ActionEvidence> {
  const el = registry.resolve(params.ref);
  if (params.values.length === 0) throw new ExecutorError("invalid_target", "resolve", "give at least one value");
  if (el.tagName !== "SELECT") {
    throw new ExecutorError("invalid_target", "resolve", "the element is not a <select>: click it, then click the option", false);
  }
  const select = el as HTMLSelectElement;
  await ensureActionable(el, "click", signal);
  const options = Array.from(select.options);
  const wanted = params.values.map((v) => v.trim().toLowerCase());
  const matches = params.values.map((value, i) =>
    options.find((o) => o.value === value) ?? options.find((o) => o.text.trim() === value.trim()) ?? options.find((o) => o.text.trim().toLowerCase() === wanted[i] || o.value.toLowerCase() === wanted[i]),
  );
  const missing = params.values.filter((_, i) => !matches[i]);
  if (missing.length > 0) {
    const available = options.map((o) => ({ value: o.value, label: o.text.trim(), disabled: o.disabled }));
    throw new ExecutorError("invalid_target", "resolve", `no option matches ${missing.map((m) => JSON.stringify(m)).join(", ")}; the options are ${available.map((o) => JSON.stringify(o.label)).join(", ")}`, false, { options: available });
  }
  if (matches.length > 1 && !select.multiple) throw new ExecutorError("ambiguous_target", "resolve", "this select takes one value");
  highlight(el);
  return withEvidence(timing, signal, () => {
    const realm = (el.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
    if (select.multiple) for (const o of options) o.selected = matches.includes(o);
    else if (matches[0]) select.value = matches[0].value;
    select.dispatchEvent(new realm.Event("input", { bubbles: true, composed: true }));
    select.dispatchEvent(new realm.Event("change", { bubbles: true }));
    const chosen = Array.from(select.selectedOptions, (o) => o.text.trim());
    return { effect: "verified", observed: [`selected ${chosen.map((c) => JSON.stringify(c)).join(", ")}`] };
  });
}

/** A synthetic key chord on the ref or the focused element, with the defaults pages rely on. */
export async function pressKey(registry: RefRegistry, params: PressKeyParams, timing: SettleTiming, signal: AbortSignal): Promise<ActionEvidence> {
  const el = params.ref ? registry.resolve(params.ref) : document.activeElement ?? document.body;
  if (params.ref) {
    await ensureActionable(el, "any", signal);
    focusElement(el);
    highlight(el);
  }
  const chord = parseChord(params.key);
  return withEvidence(timing, signal, () => {
    const observed = ["synthetic key event (no trusted input on this level)"];
    const allowed = keyDown(el, chord);
    if (allowed) {
      if (chord.key === "Enter" && isTextField(el)) observed.push(...submitFrom(el));
      else if (chord.key === "a" && (chord.ctrlKey || chord.metaKey) && isTextField(el)) (el as HTMLInputElement).select();
      else if (chord.key.length === 1 && !chord.ctrlKey && !chord.metaKey && isTextField(el)) setText(el, currentText(el) + chord.key, "insertText", chord.key);
      else if (chord.key === "Backspace" && isTextField(el)) setText(el, currentText(el).slice(0, -1), "deleteContentBackward", null);
    }
    keyUp(el, chord);
    return { effect: "dispatched", observed };
  });
}

function isTextField(el: Element): boolean {
  return el.tagName === "INPUT" || el.tagName === "TEXTAREA";
}

function isPassword(el: Element): boolean {
  return el.tagName === "INPUT" && (el as HTMLInputElement).type === "password";
}

function currentText(el: Element): string {
  if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return (el as HTMLInputElement).value;
  return el.textContent ?? "";
}

/**
 * Sets a field's text so that framework-controlled inputs see it: the prototype's native setter
 * (React tracks values with a setter on the instance, in the page's world; ours goes around it),
 * then an `input` event, which React and Vue both listen to.
 */
function setText(el: Element, text: string, inputType: string, data: string | null): void {
  const realm = (el.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
  if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
    const proto = Object.getPrototypeOf(el) as object;
    const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
    if (setter) setter.call(el, text);
    else (el as HTMLInputElement).value = text;
  } else {
    const doc = el.ownerDocument;
    const selection = doc.getSelection();
    const range = doc.createRange();
    range.selectNodeContents(el);
    selection?.removeAllRanges();
    selection?.addRange(range);
    if (!doc.execCommand("insertText", false, text)) el.textContent = text;
  }
  el.dispatchEvent(new realm.InputEvent("input", { bubbles: true, composed: true, inputType, data }));
}

/** Enter on a field: keydown/keyup, then the form's submission when the page did not stop it. */
function submitFrom(el: Element): string[] {
  const chord = { key: "Enter", ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
  const allowed = keyDown(el, chord);
  keyUp(el, chord);
  const form = (el as HTMLInputElement).form ?? el.closest("form");
  if (allowed && form) {
    form.requestSubmit();
    return ["submitted the form"];
  }
  return allowed ? ["pressed Enter (no form to submit)"] : ["pressed Enter (the page handled it)"];
}
