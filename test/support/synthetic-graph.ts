import type { GraphDocument, GraphNode } from '../../src/graph/graph.types';

/** The words of synthetic nodes: a search for a few of them ranks many nodes. */
export const SYNTHETIC_WORDS = [
  'invoice',
  'customer',
  'refund',
  'shipment',
  'ledger',
  'payroll',
  'webhook',
  'retry',
  'archive',
  'report',
  'quota',
  'audit',
];

/**
 * A graph of `count` nodes `n0`, `n1`… (type `code`, sheet `0`) whose process text mixes two words
 * of SYNTHETIC_WORDS, and `edges` edges chaining the first nodes (n0 → n1 → …), for tests of large
 * graphs (imports, index builds).
 */
export function syntheticGraph(graphKey: string, count: number, edges = 0): GraphDocument {
  const words = SYNTHETIC_WORDS;
  const nodes: GraphNode[] = Array.from({ length: count }, (_, index) => ({
    _key: `n${index}`,
    graphKey,
    type: 'code',
    sheet: '0',
    posX: index,
    posY: 0,
    process: `// ${words[index % words.length]} ${words[(index * 7) % words.length]} step ${index}\nreturn ${words[(index * 5) % words.length]}(input);`,
  }));
  const chained = nodes.slice(1, Math.min(count, edges + 1)).map((node, index) => ({
    _key: `e${index}`,
    graphKey,
    sheet: '0',
    source: `n${index}`,
    sourceHandle: 'R-0',
    target: node._key,
    targetHandle: 'L-0',
  }));
  return {
    graph: { _key: graphKey, workspace: 'default', name: graphKey, sheetsList: { '0': 'main' } },
    nodes,
    edges: chained,
    nodeConfigs: [],
  };
}
