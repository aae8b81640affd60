// The snapshot tree: what the walk found, before rendering and budgeting.

/** One line of the snapshot and what is under it. */
export interface SnapNode {
  /** The line without indentation and without the leading "- ". */
  line: string;
  /** The element, for refs of folded regions; null for text. */
  el: Element | null;
  /** The node's own ref, when it is an interactive element. */
  ref: string | null;
  children: SnapNode[];
  /** Whether the node's box intersects the top-level viewport (measured when first asked). */
  readonly inViewport: boolean;
  /** Plain text (not an element line). */
  isText: boolean;
  /** A heading without a ref (it names the lines around it when they are folded). */
  readonly heading?: boolean;
  /** A list (its items, and lists nested in it, are one level of the outline). */
  readonly list?: boolean;
  /** Lines of the subtree, this one's included (set by `measure` once the walk is done). */
  lines: number;
  /** Refs in the subtree, this one's included (set by `measure`). */
  interactive: number;
  /** Position in document order (set by `measure`). */
  order: number;
  /**
   * Estimated tokens per rendering, computed once (a snapshot fits several times), and the leaf
   * and open lines as costed (with indentation), so rendering does not build them again. A folded
   * line is not kept: the ref it names may only be allocated when it is rendered.
   */
  cost?: { leaf?: number; open?: number; folded?: number; leafLine?: string; openLine?: string };
}


/** Sets every node's `lines`, `interactive` and `order`; returns the totals of the forest. */
export function measure(roots: SnapNode[]): { lines: number; interactive: number } {
  let order = 0;
  const visit = (node: SnapNode): void => {
    node.order = order++;
    let lines = 1;
    let interactive = node.ref ? 1 : 0;
    // Indexed: a for-of makes an iterator per node until the JIT has compiled this.
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as SnapNode;
      visit(child);
      lines += child.lines;
      interactive += child.interactive;
    }
    node.lines = lines;
    node.interactive = interactive;
  };
  let lines = 0;
  let interactive = 0;
  for (const root of roots) {
    visit(root);
    lines += root.lines;
    interactive += root.interactive;
  }
  return { lines, interactive };
}

/** A line body as a YAML scalar: plain when that reads back the same, else single-quoted. */
export function yamlScalar(body: string): string {
  if (body.startsWith('"')) return body;
  if (/: |:$| #|^[-?:,[\]{}#&*!|>'"%@`]|\t/.test(body)) return `'${body.replace(/'/g, "''")}'`;
  return body;
}
