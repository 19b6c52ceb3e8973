import { encode } from '@toon-format/toon';
import type { Locale } from '../config/app-config';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import { formatNodeType } from './node-type-config-summary';
import { RAG_CONTEXT_PREFIX } from './rag-context-prefix';

const HEADERS: Readonly<Record<Locale, { nodes: string; edges: string }>> = Object.freeze({
  en: { nodes: 'RELEVANT NODES:', edges: 'RELEVANT EDGES:' },
  fr: { nodes: 'NODES PERTINENTS :', edges: 'EDGES PERTINENTES :' },
});

/**
 * The relevant nodes and edges as TOON tables (one header line of column names, then one line per
 * row), which costs far fewer tokens than the same rows as JSON.
 *   nodes: key, type ("api-call (API Call)"), sheet (its name), process, data (JSON summary)
 *   edges: from ("node:handle"), to ("node:handle"), label
 */
export function buildContextSummary(context: GraphRAGContext, locale: Locale = 'en'): string {
  const headers = HEADERS[locale] ?? HEADERS.en;
  const nodes = context.relevantNodes.map((node) => ({
    key: node._key,
    type: formatNodeType(node.type, node.typeName),
    sheet: node.sheetName,
    process: node.process,
    data: node.dataSummary,
  }));
  const edges = context.relevantEdges.map((edge) => ({
    from: `${edge.source}:${edge.sourceHandle}`,
    to: `${edge.target}:${edge.targetHandle}`,
    label: edge.label ?? '',
  }));
  return `${headers.nodes}\n${encode(nodes)}\n\n${headers.edges}\n${encode(edges)}`;
}

/** The whole per-question context message: prefix line, then the TOON summary. */
export function buildContextMessage(context: GraphRAGContext, locale: Locale = 'en'): string {
  return contextMessageOf(buildContextSummary(context, locale), locale);
}

/** The context message of a summary already encoded (buildContextSummary in `locale`). */
export function contextMessageOf(summary: string, locale: Locale = 'en'): string {
  return `${RAG_CONTEXT_PREFIX[locale] ?? RAG_CONTEXT_PREFIX.en}\n${summary}`;
}
