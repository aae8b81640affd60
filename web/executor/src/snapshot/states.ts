// State attributes of a snapshot line and the quoting of names.

import { attributeNames, collapseSpace } from "../dom";

const MAX_NAME = 100;
const MAX_VALUE = 60;

/** A name or text as a double-quoted string, escaped like JSON (which YAML reads the same). */
export function quoteName(text: string): string {
  // YAML reads neither C1 controls, a byte-order mark nor unpaired surrogates inside a scalar.
  // Nearly no name has any of them: one test spares the two replacements (and their copies).
  if (!SUSPECT.test(text)) return JSON.stringify(text);
  const clean = text.replace(/[\u2028\u2029]/g, " ").replace(/[\u007f-\u009f\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "");
  return JSON.stringify(clean);
}

/**
 * A line of page text: plain (`- Free returns within 30 days.`), which spares the two quotes'
 * token on every text line, when YAML reads it back as the same string and it cannot pass for
 * an element line; else quoted as a name is. Quoted: text YAML would misread (an indicator
 * first, `: `, ` #`, a trailing colon, a number or a word like `true`), text that starts like an
 * element line (a lowercase word and a quote or nothing else, `button "OK"`) and text with a
 * `[` (it could pass for a ref or a state).
 */
export function textScalar(text: string): string {
  if (SUSPECT.test(text) || NOT_PLAIN.test(text) || YAML_TYPED.test(text) || ELEMENT_LIKE.test(text)) return quoteName(text);
  return text;
}

const NOT_PLAIN = /: |:$| #|^[-?:,[\]{}#&*!|>'"%@`\s]|[\[\\\u0000-\u001f]|\s$/;
const YAML_TYPED = /^(?:[-+.\d][\w.:+-]*|~|null|true|false|yes|no|on|off|y|n)$/i;
const ELEMENT_LIKE = /^[a-z][a-z0-9]*(?: "|$)/;

/** The characters `quoteName` replaces or drops, and surrogates (which may be unpaired). */
const SUSPECT = /[\u007f-\u009f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `[checked] [disabled] [expanded] [selected] [invalid] [value="…"]`, as they apply (a heading's level is in its role, `h2`). */
export function stateAttrs(el: Element, role: string, name: string): string[] {
  const attrs: string[] = [];
  const tag = el.tagName;
  const input = el as HTMLInputElement;
  // Most elements carry none of the attributes below.
  const names = attributeNames(el);
  const attr = (attrName: string): string | null => (names.includes(attrName) ? el.getAttribute(attrName) : null);
  const ariaChecked = attr("aria-checked");
  const isCheckable = role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio";
  if (isCheckable) {
    if (tag === "INPUT" && input.indeterminate) attrs.push("[checked=mixed]");
    else if (ariaChecked === "mixed") attrs.push("[checked=mixed]");
    else if ((tag === "INPUT" && input.checked) || ariaChecked === "true") attrs.push("[checked]");
  }
  const pressed = attr("aria-pressed");
  if (pressed === "true") attrs.push("[pressed]");
  const control = FORM_CONTROL_TAGS.has(tag) || tag.includes("-");
  if (attr("aria-disabled") === "true" || (control && safeMatches(el, ":disabled"))) attrs.push("[disabled]");
  if (tag === "SUMMARY") {
    const details = el.parentElement;
    if (details?.tagName === "DETAILS") attrs.push((details as HTMLDetailsElement).open ? "[expanded]" : "[collapsed]");
  } else {
    const expanded = attr("aria-expanded");
    if (expanded === "true") attrs.push("[expanded]");
    else if (expanded === "false") attrs.push("[collapsed]");
  }
  if (attr("aria-selected") === "true" || (tag === "OPTION" && (el as HTMLOptionElement).selected)) attrs.push("[selected]");
  if (attr("aria-invalid") === "true" || (control && safeMatches(el, ":user-invalid"))) attrs.push("[invalid]");
  if (names.includes("required") || attr("aria-required") === "true") attrs.push("[required]");
  const value = valueOf(el, role);
  // A value that only repeats the name says nothing.
  if (value !== null && value !== `[value=${JSON.stringify(name)}]`) attrs.push(value);
  return attrs;
}

/**
 * The elements `:disabled` and `:user-invalid` can match (form controls and form-associated
 * custom elements): the selector is not matched against the others.
 */
const FORM_CONTROL_TAGS = new Set(["BUTTON", "INPUT", "SELECT", "TEXTAREA", "OPTION", "OPTGROUP", "FIELDSET", "FORM"]);

function valueOf(el: Element, role: string): string | null {
  const tag = el.tagName;
  if (tag === "INPUT") {
    const input = el as HTMLInputElement;
    const type = input.type.toLowerCase();
    if (type === "password") return input.value ? "[type=password] [filled]" : "[type=password]";
    if (["checkbox", "radio", "button", "submit", "reset", "image", "file", "hidden"].includes(type)) return null;
    return input.value ? `[value=${quoteName(clip(input.value, MAX_VALUE))}]` : null;
  }
  if (tag === "TEXTAREA") {
    const value = (el as HTMLTextAreaElement).value;
    return value ? `[value=${quoteName(clip(collapseSpace(value), MAX_VALUE))}]` : null;
  }
  if (tag === "SELECT") {
    const text = Array.from((el as HTMLSelectElement).selectedOptions, (o) => o.text.trim()).join(", ");
    return text ? `[value=${quoteName(clip(text, MAX_VALUE))}]` : null;
  }
  if (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "scrollbar") {
    const now = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow");
    return now !== null ? `[value=${quoteName(clip(now, MAX_VALUE))}]` : null;
  }
  if (role === "textbox" || role === "searchbox" || role === "combobox") {
    const text = collapseSpace(el.textContent ?? "");
    return text ? `[value=${quoteName(clip(text, MAX_VALUE))}]` : null;
  }
  return null;
}

function safeMatches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

/** Clips a name for a line. */
export function clipName(name: string): string {
  return clip(name, MAX_NAME);
}
