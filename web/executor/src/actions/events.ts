// Synthetic input: mouse sequences at a point and key events, created in the target's own realm.

import type { Point } from "./actionability";

type Realm = Window & typeof globalThis;

function realmOf(el: Element): Realm {
  return (el.ownerDocument.defaultView ?? window) as Realm;
}

/** pointerdown, mousedown, focus, pointerup, mouseup, then click (or contextmenu). */
export function clickAt(el: Element, point: Point, button: "left" | "right", double: boolean): void {
  const realm = realmOf(el);
  const buttonCode = button === "right" ? 2 : 0;
  const base = { bubbles: true, cancelable: true, composed: true, clientX: point.x, clientY: point.y, button: buttonCode, view: realm };
  const rounds = double ? 2 : 1;
  for (let i = 1; i <= rounds; i++) {
    el.dispatchEvent(new realm.PointerEvent("pointerdown", { ...base, buttons: 1 << buttonCode, pointerType: "mouse", isPrimary: true }));
    el.dispatchEvent(new realm.MouseEvent("mousedown", { ...base, buttons: 1 << buttonCode, detail: i }));
    if (i === 1) focusElement(el);
    el.dispatchEvent(new realm.PointerEvent("pointerup", { ...base, pointerType: "mouse", isPrimary: true }));
    el.dispatchEvent(new realm.MouseEvent("mouseup", { ...base, detail: i }));
    if (button === "right") el.dispatchEvent(new realm.MouseEvent("contextmenu", { ...base, detail: i }));
    else el.dispatchEvent(new realm.MouseEvent("click", { ...base, detail: i }));
  }
  if (double && button === "left") el.dispatchEvent(new realm.MouseEvent("dblclick", { ...base, detail: 2 }));
}

/** pointerover/mouseover/mouseenter/mousemove at a point. */
export function hoverAt(el: Element, point: Point): void {
  const realm = realmOf(el);
  const base = { bubbles: true, cancelable: true, composed: true, clientX: point.x, clientY: point.y, view: realm };
  el.dispatchEvent(new realm.PointerEvent("pointerover", { ...base, pointerType: "mouse" }));
  el.dispatchEvent(new realm.MouseEvent("mouseover", base));
  el.dispatchEvent(new realm.MouseEvent("mouseenter", { ...base, bubbles: false }));
  el.dispatchEvent(new realm.PointerEvent("pointermove", { ...base, pointerType: "mouse" }));
  el.dispatchEvent(new realm.MouseEvent("mousemove", base));
}

/** Focuses the element or its nearest focusable ancestor. */
export function focusElement(el: Element): void {
  const target = (el as HTMLElement).focus ? (el as HTMLElement) : null;
  target?.focus({ preventScroll: true });
}

/** Modifier state of a key chord. */
export interface Chord {
  key: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/** Parses `Control+a`, `Shift+Tab`, `Enter`, `Meta+Shift+K`. */
export function parseChord(text: string): Chord {
  const parts = text.split("+");
  let key = parts.pop() ?? "";
  if (key === "" && text.endsWith("+")) key = "+";
  const mods = new Set(parts.map((p) => p.toLowerCase()));
  return {
    key: key.length === 1 ? key : normalizeKeyName(key),
    ctrlKey: mods.has("control") || mods.has("ctrl"),
    shiftKey: mods.has("shift"),
    altKey: mods.has("alt") || mods.has("option"),
    metaKey: mods.has("meta") || mods.has("cmd") || mods.has("command"),
  };
}

function normalizeKeyName(key: string): string {
  const aliases: Record<string, string> = { esc: "Escape", return: "Enter", space: " ", del: "Delete", up: "ArrowUp", down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight" };
  return aliases[key.toLowerCase()] ?? key;
}

/** Dispatches keydown (and keypress for characters); returns whether the page let it through. */
export function keyDown(el: Element, chord: Chord): boolean {
  const realm = realmOf(el);
  const init = { ...chord, bubbles: true, cancelable: true, composed: true, code: codeOf(chord.key) };
  const allowed = el.dispatchEvent(new realm.KeyboardEvent("keydown", init));
  if (allowed && (chord.key.length === 1 || chord.key === "Enter") && !chord.ctrlKey && !chord.metaKey) {
    return el.dispatchEvent(new realm.KeyboardEvent("keypress", init));
  }
  return allowed;
}

/** Dispatches keyup. */
export function keyUp(el: Element, chord: Chord): void {
  const realm = realmOf(el);
  el.dispatchEvent(new realm.KeyboardEvent("keyup", { ...chord, bubbles: true, cancelable: true, composed: true, code: codeOf(chord.key) }));
}

function codeOf(key: string): string {
  if (/^[a-z]$/i.test(key)) return `Key${key.toUpperCase()}`;
  if (/^[0-9]$/.test(key)) return `Digit${key}`;
  if (key === " ") return "Space";
  return key;
}
