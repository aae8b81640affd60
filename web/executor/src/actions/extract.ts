// extract: the page, or a ref's subtree, as Markdown (headings, links, lists, paragraphs,
// tables as lines), paged in 8,000-character windows with `fromChar`.

import type { ExtractParams, ExtractResult } from "../generated/protocol";
import type { RefRegistry } from "../refs";
import { styleOf } from "../dom";

const WINDOW = 8000;
const MAX_TOTAL = 200_000;
const DROP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "NAV", "FOOTER", "HEADER", "ASIDE", "SVG", "svg", "IFRAME", "PANELOT-OVERLAY", "PANELOT-INDICATOR"]);

/** Converts and pages. */
export function extract(registry: RefRegistry, params: ExtractParams): ExtractResult {
  const root = params.ref ? registry.resolve(params.ref) : document.body ?? document.documentElement;
  const markdown = toMarkdown(root, params.ref !== null).slice(0, MAX_TOTAL);
  const from = Math.min(Math.max(params.fromChar ?? 0, 0), markdown.length);
  const end = Math.min(from + WINDOW, markdown.length);
  return { markdown: markdown.slice(from, end), fromChar: from, nextChar: end < markdown.length ? end : null, totalChars: markdown.length };
}

function toMarkdown(root: Element, scoped: boolean): string {
  const out: string[] = [];
  let line = "";
  const flush = (): void => {
    const text = line.replace(/[ \t]+/g, " ").trim();
    if (text) out.push(text);
    line = "";
  };
  const visit = (node: Node, listDepth: number): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      line += node.textContent ?? "";
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node as Element;
    // Inside an explicitly chosen region nothing is dropped as page chrome.
    if (DROP.has(el.tagName) && !(scoped && ["NAV", "FOOTER", "HEADER", "ASIDE"].includes(el.tagName))) return;
    const style = styleOf(el);
    if (style.display === "none" || style.visibility === "hidden") return;
    const tag = el.tagName;
    const block = !(style.display.startsWith("inline") || style.display === "contents");
    const heading = /^H([1-6])$/.exec(tag);
    if (heading?.[1]) {
      flush();
      line = `${"#".repeat(Number(heading[1]))} ${el.textContent?.trim() ?? ""}`;
      flush();
      return;
    }
    if (tag === "A" && el.getAttribute("href")) {
      const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
      const href = (el as HTMLAnchorElement).href;
      line += text ? `[${text}](${href})` : "";
      return;
    }
    if (tag === "IMG") {
      const alt = el.getAttribute("alt");
      if (alt) line += `![${alt}]`;
      return;
    }
    if (tag === "BR") {
      flush();
      return;
    }
    if (tag === "LI") {
      flush();
      line = `${"  ".repeat(Math.max(listDepth - 1, 0))}- `;
      for (const child of Array.from(el.childNodes)) visit(child, listDepth);
      flush();
      return;
    }
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (block) flush();
    const depth = tag === "UL" || tag === "OL" ? listDepth + 1 : listDepth;
    const children = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    for (const child of Array.from(children)) visit(child, depth);
    if (tag === "TD" || tag === "TH") line += " | ";
    if (block) flush();
  };
  visit(root, 0);
  flush();
  return out.join("\n");
}
