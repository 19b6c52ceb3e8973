/** The compact sub-graph handed to the model. */

export interface HandleSummary {
  side: string;
  /** "out(any)", "in(string)" ... one entry per point. */
  points: Array<{ id: string; type: 'in' | 'out'; accept: string }>;
}

export interface RelevantNode {
  _key: string;
  type: string;
  /** Display name of the type (its NodeTypeConfig), or the type itself for built-ins. */
  typeName: string;
  sheet: string;
  sheetName: string;
  /** Process code truncated to truncateProcess characters. */
  process: string;
  handles: HandleSummary[];
  /** JSON of `data` truncated to truncateData characters ("" when none). */
  dataSummary: string;
  /** Why it is here: pinned by the user, found by search (with its fused score), or added by expansion. */
  origin: 'mention' | 'search' | 'neighbor';
  score?: number;
}

export interface RelevantEdge {
  _key: string;
  sheet: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
  label?: string;
}

export interface NodeTypeConfigSummary {
  _key: string;
  displayName: string;
  description?: string;
  category?: string;
  icon?: string;
  /** Handles formatted for the model, e.g. "R:out(any), L:in(string)". */
  handlesSummary: string;
}

export interface GraphRAGContext {
  graph: {
    _key: string;
    name: string;
    description?: string;
    /** sheetId → sheet name */
    sheets: Record<string, string>;
    metadata?: Record<string, unknown>;
  };
  /** Ranked: mentions, then search hits best first, then neighbours added by the expansion. */
  relevantNodes: RelevantNode[];
  relevantEdges: RelevantEdge[];
  nodeTypeConfigs: NodeTypeConfigSummary[];
  /** How the context was built (for /rag/context, dump-context and metrics). */
  retrieval: {
    query: string;
    searchMode: 'bm25' | 'hybrid' | 'fallback';
    cacheHit: boolean;
    durationMs: number;
    /**
     * Present when the graph's search index was still being built (a large graph just imported or
     * loaded): the context was made from what was ready, and is not cached.
     */
    indexing?: true;
  };
}
