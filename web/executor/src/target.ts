// What the engine judges a page call against: the document (its id, URL, origin, title) and,
// per ref, the element in words (role and name as its snapshot line shows them) and where acting
// on it leads (a link's URL, a form's submission). Also the check of `expected`: a call judged
// for one document and origin is refused in any other.
//
// A describe is a read: it does not focus, scroll or dispatch anything.

import type { DescribeItem, DescribeTargetParams, Destination, ElementDescription, ExpectedTarget, TargetDescription } from "./generated/protocol";
import { BATCH_MAX_ACTIONS, TARGET_TEXT_MAX_CHARS as MAX_TEXT, TARGET_URL_MAX_CHARS as MAX_URL } from "./generated/protocol";
import { resetNameCache } from "./accname";
import { ExecutorError } from "./failure";
import type { RefRegistry } from "./refs";
import { roleOf } from "./roles";
import { actionableName, shownRole } from "./snapshot/walk";

/**
 * The origin of this document as the executor reports and checks it, spelled as the engine's
 * origins are (`Origin` in crates/protocol): for http(s) `scheme://host[:port]` with the
 * browser's lowercase ASCII host less any trailing dots and the default port left out (so
 * `location.origin`, but for a trailing dot); `file://host` for files (`file://` mostly); for
 * every other scheme, whose origin is opaque (`about:blank`, `about:srcdoc`, `data:`), the scheme
 * and its colon (`about:`, `data:`). It is read from the document's URL, like the origin the
 * engine reads from the tab's URL: an `about:blank` document says `about:` although the browser
 * gives it its creator's security origin.
 */
export function pageOrigin(): string {
  const scheme = location.protocol;
  const host = location.hostname.replace(/\.+$/, "");
  if (scheme === "http:" || scheme === "https:") return `${scheme}//${host}${location.port ? `:${location.port}` : ""}`;
  if (scheme === "file:") return `file://${host}`;
  return scheme;
}

/** Refuses the call with `target_changed` unless it runs in the document and origin it was judged for. */
export function checkExpected(expected: ExpectedTarget, documentId: string): void {
  const origin = pageOrigin();
  if (expected.documentId === documentId && expected.origin === origin) return;
  const what = expected.origin !== origin ? `the page is now on ${origin}, not ${expected.origin}` : "the tab now holds another document than the one the call was judged for";
  throw new ExecutorError("target_changed", "resolve", `${what}: the call was not run; look at the page again`, false, {
    documentId,
    origin: clip(origin, MAX_URL),
    url: clip(location.href, MAX_URL),
  });
}

/** The document and the elements the refs name. */
export function describeTarget(registry: RefRegistry, params: DescribeTargetParams, documentId: string): TargetDescription {
  if (params.targets.length > BATCH_MAX_ACTIONS) {
    throw new ExecutorError("invalid_target", "resolve", `describe at most ${BATCH_MAX_ACTIONS} elements at once`);
  }
  // Resolve every ref first, so that a stale one fails the call before any work.
  const found = params.targets.map((item) => ({ item, el: registry.resolve(item.ref) }));
  // Labels may have changed since the last walk.
  resetNameCache();
  return {
    documentId,
    url: clip(location.href, MAX_URL),
    origin: clip(pageOrigin(), MAX_URL),
    title: clip(document.title, MAX_TEXT),
    elements: found.map(({ item, el }) => describeElement(el, item)),
  };
}

function describeElement(el: Element, item: DescribeItem): ElementDescription {
  const role = roleOf(el);
  const tag = el.localName;
  const input = tag === "input" && isHtml(el) ? (el as HTMLInputElement) : null;
  return {
    ref: item.ref,
    role: clip(shownRole(el, role), MAX_TEXT),
    name: clip(actionableName(el, role), MAX_TEXT),
    tag: clip(tag, MAX_TEXT),
    inputType: input ? clip(input.type, MAX_TEXT) : null,
    password: isPasswordField(el),
    destination: destinationOf(el, item.submits),
  };
}

/**
 * Where acting on the element leads. A submit button (a `<button>` whose type is submit or
 * missing, an `<input type=submit|image>`) with a form owner (its ancestor form or its `form=`
 * attribute) submits that form with its own overrides. With `submits` (type then Enter, or
 * press_key Enter) the element's form is submitted as the executor's Enter does it: the form
 * owner, else the ancestor form, with `requestSubmit()` and no submitter. Else the element or
 * its nearest ancestor `a[href]`/`area[href]` (also `xlink:href`), through shadow roots, is a
 * link.
 */
function destinationOf(el: Element, submits: boolean): Destination | null {
  if (isSubmitButton(el)) {
    const owner = (el as HTMLButtonElement).form;
    if (owner) return formSubmission(owner, el);
  }
  if (submits) {
    const form = enterForm(el);
    if (form) return formSubmission(form, null);
  }
  const link = linkOf(el);
  if (!link) return null;
  const href = attr(link, "href") ?? attr(link, "xlink:href") ?? "";
  return { kind: "link", url: clip(resolveUrl(href, link), MAX_URL), method: null };
}

/**
 * The submission a form makes: the submitter's `formaction`/`formmethod` override the form's
 * `action`/`method`; an empty action is the document's URL. A `dialog` form closes its dialog
 * and goes nowhere. Attributes are read through `Element.prototype`: a form's own properties
 * (`form.action`, even `form.getAttribute`) can be shadowed by its controls' names.
 */
function formSubmission(form: Element, submitter: Element | null): Destination | null {
  const action = (submitter && attr(submitter, "formaction")) ?? attr(form, "action") ?? "";
  const rawMethod = (submitter && attr(submitter, "formmethod")) ?? attr(form, "method") ?? "";
  const method = rawMethod.trim().toLowerCase();
  if (method === "dialog") return null;
  const url = action.trim() === "" ? form.ownerDocument.URL : resolveUrl(action, form);
  return { kind: "form_submit", url: clip(url, MAX_URL), method: method === "post" ? "post" : "get" };
}

function isSubmitButton(el: Element): boolean {
  if (!isHtml(el)) return false;
  if (el.localName === "button") return (el as HTMLButtonElement).type === "submit";
  if (el.localName === "input") {
    const type = (el as HTMLInputElement).type;
    return type === "submit" || type === "image";
  }
  return false;
}

/** The form Enter in the element submits (the same lookup as the executor's Enter). */
function enterForm(el: Element): Element | null {
  return (el as HTMLInputElement).form ?? el.closest("form");
}

/** The element or its nearest ancestor that is a link, through shadow roots. */
function linkOf(el: Element): Element | null {
  for (let at: Element | null = el; at; ) {
    const name = at.localName;
    if ((name === "a" || name === "area") && (at.hasAttribute("href") || at.hasAttribute("xlink:href"))) return at;
    const parent: Element | null = at.parentElement;
    if (parent) at = parent;
    else {
      // A shadow root is the only document fragment an element's root can be. (`instanceof
      // ShadowRoot` fails for frames, whose nodes come from another realm.)
      const root = at.getRootNode();
      at = root.nodeType === Node.DOCUMENT_FRAGMENT_NODE ? (root as ShadowRoot).host : null;
    }
  }
  return null;
}

/** An attribute read through `Element.prototype`, out of reach of named-property shadowing. */
function attr(el: Element, name: string): string | null {
  return Element.prototype.getAttribute.call(el, name);
}

/** The URL as the browser would follow it, absolute; as written when the browser could not parse it. */
function resolveUrl(raw: string, el: Element): string {
  try {
    return new URL(raw.trim(), el.baseURI).href;
  } catch {
    return raw.trim();
  }
}

/** A password field: `type=password`, or a field whose autocomplete names a password. */
function isPasswordField(el: Element): boolean {
  if (!isHtml(el)) return false;
  if (el.localName === "input" && (el as HTMLInputElement).type === "password") return true;
  if (el.localName !== "input" && el.localName !== "textarea") return false;
  const tokens = (attr(el, "autocomplete") ?? "").toLowerCase().split(/\s+/);
  return tokens.includes("current-password") || tokens.includes("new-password");
}

function isHtml(el: Element): boolean {
  return el.namespaceURI === "http://www.w3.org/1999/xhtml";
}

/**
 * At most `max` UTF-16 units (so at most `max` characters, as the protocol counts them), never
 * splitting a surrogate pair, ending in `…` when cut.
 */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
