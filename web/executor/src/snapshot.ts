// The `snapshot` tool: walk, budget, render. Also keeps the full (unbudgeted) lines of the latest
// walk for find_in_page, so an element folded away is still reachable by text.

import type { ReadPageParams, SnapshotResult } from "./generated/protocol";
import { SNAPSHOT_DEFAULT_TOKENS, SNAPSHOT_MAX_TOKENS } from "./generated/protocol";
import { collapseSpace } from "./dom";
import { ExecutorError } from "./failure";
import type { RefRegistry } from "./refs";
import { fit, renderView, viewTree, type ViewNode } from "./snapshot/budget";
import { estimateTokens } from "./snapshot/tokens";
import { yamlScalar, type SnapNode } from "./snapshot/tree";
import { clipName, quoteName } from "./snapshot/states";
import { walk } from "./snapshot/walk";

/** Snapshots of one document. */
export class Snapshotter {
  private count = 0;
  /** The latest snapshot's lines (indentation and "- " dropped), for diffs after actions. */
  private last: { id: string; budget: number; scopeRef: string | null; lines: string[] } | null = null;

  constructor(
    private readonly registry: RefRegistry,
    private readonly documentId: string,
  ) {}

  /** Takes a snapshot within the budget. */
  take(params: ReadPageParams): SnapshotResult {
    const budget = Math.min(Math.max(params.maxTokens ?? SNAPSHOT_DEFAULT_TOKENS, 200), SNAPSHOT_MAX_TOKENS);
    const rootEl = params.scopeRef ? this.registry.resolve(params.scopeRef) : document.body ?? document.documentElement;
    if (!rootEl) throw new ExecutorError("invalid_target", "resolve", "the page has no document body to snapshot");
    let roots: SnapNode[];
    try {
      roots = walk(rootEl, this.registry);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new ExecutorError("unknown", "execute", `the page walk failed: ${message}`, true);
    }
    if (roots.length === 0) {
      throw new ExecutorError("invalid_target", "resolve", "the page has nothing visible to snapshot (the walk found no node): it may still be loading, or be drawn in a canvas", true);
    }
    this.count += 1;
    const snapshotId = `s${this.count}`;
    const url = location.href;
    const title = document.title;
    const header = [`# snapshot ${snapshotId} · ${oneLine(url)}`, `# title: ${oneLine(title)}`];
    const headerTokens = estimateTokens(`${header.join("\n")}\n`);

    const lineText = (v: ViewNode, form: "leaf" | "open" | "folded"): string => this.lineText(v, form);
    let lines: string[] = [];
    let folded = 0;
    // The estimate is close but not exact: when the rendered text still comes out over, tighten
    // and fit again.
    let target = budget - headerTokens - FOOTER_TOKENS;
    for (let attempt = 0; attempt < 4; attempt++) {
      const root = viewTree(roots, rootEl);
      fit(root, target, lineText, this.registry);
      let tokens: number;
      ({ lines, folded, tokens } = renderView(root, this.registry, lineText, true));
      const total = headerTokens + tokens + (folded > 0 ? FOOTER_TOKENS : 0);
      if (total <= budget) break;
      target -= total - budget + 8;
    }
    this.last = { id: snapshotId, budget, scopeRef: params.scopeRef, lines: lines.map((l) => l.trim().replace(/^- /, "")) };
    if (folded > 0) lines.push(FOOTER);
    const text = `${[...header, ...lines].join("\n")}\n`;
    const refCount = (text.match(/\[e\d+\]/g) ?? []).length;
    return { snapshotId, documentId: this.documentId, generation: this.count, url, title, text, refCount, foldedRegions: folded };
  }

  /**
   * After a write: a new snapshot with the budget of the previous one, and the lines that changed
   * since (`+` now, `-` before), at most 1,500 tokens. Null when this document had no snapshot.
   */
  diffSinceLast(): string | null {
    const before = this.last;
    if (!before) return null;
    const after = this.take({ maxTokens: before.budget, scopeRef: before.scopeRef });
    const now = this.last;
    if (!now) return null;
    const removed = multisetMinus(before.lines, now.lines);
    const added = multisetMinus(now.lines, before.lines);
    if (removed.length === 0 && added.length === 0) return `# ${before.id} → ${after.snapshotId}: no change in the snapshot\n`;
    const out = [`# ${before.id} → ${after.snapshotId}: ${added.length} added, ${removed.length} removed`];
    let used = estimateTokens(out[0] ?? "");
    const changes = [...removed.map((l) => `- ${l}`), ...added.map((l) => `+ ${l}`)];
    for (const [idx, change] of changes.entries()) {
      const cost = estimateTokens(`${change}\n`);
      if (used + cost > DIFF_TOKENS - 20) {
        out.push(`# ${changes.length - idx} more changed lines: take a snapshot`);
        break;
      }
      used += cost;
      out.push(change);
    }
    return `${out.join("\n")}\n`;
  }

  /** Every line of a fresh walk of the page, without a budget (for find_in_page). */
  allLines(): string[] {
    const rootEl = document.body ?? document.documentElement;
    if (!rootEl) return [];
    const root = viewTree(walk(rootEl, this.registry), rootEl);
    const showAll = (v: ViewNode): void => {
      v.shown = true;
      v.expanded = true;
      v.children.forEach(showAll);
    };
    showAll(root);
    return renderView(root, this.registry, (v, form) => this.lineText(v, form), false).lines;
  }

  private lineText(v: ViewNode, form: "leaf" | "open" | "folded"): string {
    const node = v.node;
    if (form === "leaf") return `- ${yamlScalar(node.line)}`;
    if (form === "open") return `- ${yamlScalar(node.line)}:`;
    const inside = v.lines - 1;
    const interactive = v.interactive - (node.ref ? 1 : 0);
    const title = node.line.includes('"') ? "" : regionTitle(node);
    const what = `${interactive > 0 ? `${inside} lines, ${interactive} interactive` : `${inside} lines`}${title ? `, with ${title}` : ""}`;
    const ref = node.ref ? "" : node.el ? ` [${this.registry.peek(node.el)}]` : "";
    return `- ${yamlScalar(`${node.line} [folded ${what}]${ref}`)}`;
  }
}

/**
 * What names a region without a name of its own when it is folded: its first heading (among its
 * first lines), or a <details>' summary; "" when neither.
 */
function regionTitle(node: SnapNode): string {
  const children = node.children;
  if (node.el?.tagName === "DETAILS") {
    const summary = node.el.querySelector(":scope > summary");
    const text = summary ? collapseSpace(summary.textContent ?? "") : "";
    if (text) return `summary ${quoteName(clipName(text))}`;
  }
  for (let i = 0; i < children.length && i < 64; i++) {
    const child = children[i] as SnapNode;
    if (child.heading) return child.line;
  }
  return "";
}

/** Tokens a diff after an action may take. */
const DIFF_TOKENS = 1500;

/** The items of `a` not matched one-for-one in `b`, in `a`'s order. */
function multisetMinus(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of b) counts.set(line, (counts.get(line) ?? 0) + 1);
  const out: string[] = [];
  for (const line of a) {
    const n = counts.get(line) ?? 0;
    if (n > 0) counts.set(line, n - 1);
    else out.push(line);
  }
  return out;
}

const FOOTER = "# folded lines: expand with snapshot scopeRef=<ref>, or use find_in_page";
const FOOTER_TOKENS = 18;

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\ufeff\ufffe\uffff]/g, " ").replace(/\s+/g, " ").trim();
}
