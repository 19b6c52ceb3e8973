/** Injection token of the active GraphStore adapter. */
export const GRAPH_STORE = Symbol('GRAPH_STORE');
