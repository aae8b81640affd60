// ARIA roles: explicit `role` first, then the implicit role of the HTML-AAM mapping (the subset
// a snapshot needs), and which roles are interactive or take their name from content.

const INPUT_ROLES: Record<string, string> = {
  checkbox: "checkbox",
  radio: "radio",
  range: "slider",
  number: "spinbutton",
  search: "searchbox",
  button: "button",
  submit: "button",
  reset: "button",
  image: "button",
  file: "button",
};

const TAG_ROLES: Record<string, string> = {
  BUTTON: "button",
  SUMMARY: "button",
  TEXTAREA: "textbox",
  OPTION: "option",
  NAV: "navigation",
  MAIN: "main",
  ASIDE: "complementary",
  FORM: "form",
  DIALOG: "dialog",
  UL: "list",
  OL: "list",
  MENU: "list",
  LI: "listitem",
  TABLE: "table",
  TR: "row",
  TD: "cell",
  TH: "columnheader",
  H1: "heading",
  H2: "heading",
  H3: "heading",
  H4: "heading",
  H5: "heading",
  H6: "heading",
  FIELDSET: "group",
  DETAILS: "group",
  PROGRESS: "progressbar",
  METER: "meter",
  HR: "separator",
  IFRAME: "iframe",
  FRAME: "iframe",
  P: "paragraph",
};

/** Roles whose elements the model can act on: they get refs. */
export const INTERACTIVE_ROLES = new Set([
  "button", "link", "checkbox", "radio", "menuitem", "menuitemcheckbox", "menuitemradio", "tab",
  "option", "switch", "combobox", "slider", "spinbutton", "textbox", "searchbox", "treeitem",
  "listbox", "scrollbar", "gridcell",
]);

/** Roles whose accessible name comes from their content (accname step 2F). */
export const NAME_FROM_CONTENT = new Set([
  "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
  "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
  "tooltip", "treeitem",
]);

/** Roles shown as their own line when they hold something (structure the model navigates by). */
export const STRUCTURE_ROLES = new Set([
  "navigation", "main", "banner", "contentinfo", "complementary", "search", "form", "dialog",
  "alertdialog", "list", "table", "row", "menu", "menubar", "tablist", "tabpanel", "tree", "grid",
  "toolbar", "radiogroup", "group", "region", "iframe", "listbox",
]);

/** The element's role, or "" for a generic element. */
export function roleOf(el: Element, attrs = true, tag = el.tagName): string {
  // `attrs` false: the element has no role, contenteditable or aria-valuenow attribute. `tag`: its
  // tagName, when the caller has read it already.
  if (attrs) {
    const explicit = el.getAttribute("role")?.trim().split(/\s+/)[0];
    if (explicit && explicit !== "none" && explicit !== "presentation") return explicit;
    if (explicit === "none" || explicit === "presentation") return "";
  }
  switch (tag) {
    case "A":
    case "AREA":
      return el.hasAttribute("href") ? "link" : "";
    case "INPUT": {
      const input = el as HTMLInputElement;
      const type = input.type.toLowerCase();
      if (type === "hidden") return "";
      if (input.hasAttribute("list")) return "combobox";
      return INPUT_ROLES[type] ?? "textbox";
    }
    case "SELECT": {
      const select = el as HTMLSelectElement;
      return select.multiple || select.size > 1 ? "listbox" : "combobox";
    }
    case "IMG":
      return el.getAttribute("alt") === "" ? "" : "img";
    case "SVG":
    case "svg":
      return "";
    case "HEADER":
      return el.closest("article, aside, main, nav, section") ? "" : "banner";
    case "FOOTER":
      return el.closest("article, aside, main, nav, section") ? "" : "contentinfo";
    case "SECTION":
      return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
  }
  // A focusable element that states a value and no role is a slider's handle (widget kits that
  // leave the role out): without it, it would be a bare `focusable` with no value.
  if (attrs && el.hasAttribute("aria-valuenow") && el.hasAttribute("tabindex") && Number(el.getAttribute("tabindex")) >= 0) return "slider";
  if (tag === "DIV" || tag === "SPAN") {
    if (attrs && isContentEditableRoot(el)) return "textbox";
    return "";
  }
  return TAG_ROLES[tag] ?? (attrs && isContentEditableRoot(el) ? "textbox" : "");
}

/** The root of an editing host (not its editable descendants). */
export function isContentEditableRoot(el: Element): boolean {
  if (!el.hasAttribute("contenteditable")) return false;
  if (!(el instanceof (el.ownerDocument.defaultView ?? window).HTMLElement)) return false;
  const html = el as HTMLElement;
  if (!html.isContentEditable) return false;
  const parent = html.parentElement;
  return !parent || !parent.isContentEditable;
}

/** The heading level of an element with role heading. */
export function headingLevel(el: Element): number | null {
  const aria = Number(el.getAttribute("aria-level"));
  if (aria > 0) return aria;
  const match = /^H([1-6])$/i.exec(el.tagName);
  return match?.[1] ? Number(match[1]) : null;
}
