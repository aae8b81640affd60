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
  /** Estimated tokens per rendering, computed once (a snapshot fits several times). */
  cost?: { leaf?: number; open?: number; folded?: number };
}

