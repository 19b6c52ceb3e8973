import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { GraphNodeEmbedder } from '../src/embeddings/graph-node.embedder';
import { LocalHashEmbeddingProvider } from '../src/embeddings/local-hash-embedding.provider';
import { GraphChangeNotifier } from '../src/graph/graph-change.notifier';
import { GraphDataSource } from '../src/graph/graph-data-source';
import { GraphDocument, GraphEdge, GraphNode } from '../src/graph/graph.types';
import { LiveGraphChanges } from '../src/graph/overlay/live-graph-changes';
import { LiveOverlayRegistry } from '../src/graph/overlay/live-overlay.registry';
import { OverlayGraphDataSource } from '../src/graph/overlay/overlay-graph.data-source';
import { SqliteGraphStore } from '../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../src/observability/logger';
import { GraphRagRetriever } from '../src/rag/graph-rag.retriever';
import { seededRandom } from '../test/support/seeded-random';
import { percentile } from './bench-statistics';
import { buildPoolGraph } from './workflow-pool.graph-builder';

/**
 * What the live overlay costs on a large graph (embedded store): the same calls on the store's own
 * data source, through the overlay decorator with no unsaved change (the common case), and with a
 * few hundred unsaved entries (moved, edited and new nodes, new and deleted edges, deleted nodes).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/live-overlay.bench.js [--nodes 20000] [--queries 200] [--overlay 300] [--hybrid]
 */

const WORKSPACE = 'bench';

function queriesFor(document: GraphDocument, count: number, next: () => number): string[] {
  const queries: string[] = [];
  while (queries.length < count) {
    const node = document.nodes[Math.floor(next() * document.nodes.length)];
    const words = node._key
      .replace(/^s\d+-/, '')
      .replace(/[-_.]+/g, ' ')
      .replace(/\d+/g, ' ')
      .trim();
    if (words) queries.push(queries.length % 2 ? words : `what does the ${words} node do?`);
  }
  return queries;
}

/** `size` unsaved entries: a third moved nodes, a third edited nodes, a third new nodes wired in; plus deletions. */
function liveChanges(document: GraphDocument, size: number, next: () => number): LiveGraphChanges {
  const pick = () => document.nodes[Math.floor(next() * document.nodes.length)];
  const third = Math.floor(size / 3);
  const moved = Array.from({ length: third }, () => ({ ...pick(), posX: Math.round(next() * 5000) }));
  const edited = Array.from({ length: third }, (_, index) => ({
    ...pick(),
    data: { note: `edited live ${index}: send the quarterly invoice reminder` },
  }));
  const created: GraphNode[] = Array.from({ length: size - 2 * third }, (_, index) => ({
    _key: `live-node-${index}`,
    graphKey: document.graph._key,
    type: 'n8n-nodes-base.code',
    sheet: '0',
    posX: 0,
    posY: 0,
    process: `// live ${index}: reconcile invoices with the payment provider\nreturn items;`,
  }));
  const upsertEdges: GraphEdge[] = created.map((node, index) => {
    const target = pick();
    return {
      _key: `live-edge-${index}`,
      graphKey: document.graph._key,
      sheet: target.sheet,
      source: node._key,
      sourceHandle: '0',
      target: target._key,
      targetHandle: '0',
    };
  });
  const upserted = new Set([...moved, ...edited].map((node) => node._key));
  const deleteNodes = [...new Set(Array.from({ length: Math.ceil(size / 10) }, () => pick()._key))].filter(
    (key) => !upserted.has(key),
  );
  const deleteEdges = [
    ...new Set(
      Array.from(
        { length: Math.ceil(size / 10) },
        () => document.edges[Math.floor(next() * document.edges.length)]._key,
      ),
    ),
  ];
  const unique = new Map([...moved, ...edited].map((node) => [node._key, node]));
  return { upsertNodes: [...unique.values(), ...created], deleteNodes, upsertEdges, deleteEdges };
}

async function time(run: () => Promise<unknown>, repeat: number): Promise<{ p50: number; p95: number }> {
  const samples: number[] = [];
  for (let index = 0; index < repeat; index += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function main(): Promise<void> {
  configureLogging({ level: 'error' });
  const argument = (name: string) => {
    const index = process.argv.indexOf(name);
    return index >= 0 ? process.argv[index + 1] : undefined;
  };
  const size = Number(argument('--nodes') ?? 20_000);
  const queryCount = Number(argument('--queries') ?? 200);
  const overlaySize = Number(argument('--overlay') ?? 300);
  const hybrid = process.argv.includes('--hybrid');

  const dataDir = mkdtempSync(path.join(tmpdir(), 'overlay-bench-'));
  const db = openSqliteDatabase(dataDir);
  try {
    const store = new SqliteGraphStore(db);
    const graphKey = `pool-${size}`;
    const document = buildPoolGraph(size, graphKey, WORKSPACE);
    await store.importGraph(WORKSPACE, document);
    const provider = hybrid ? new LocalHashEmbeddingProvider() : null;
    if (provider)
      await new GraphNodeEmbedder(store, provider, { batchSize: 256, limiter: pLimit(1) }).embedGraph(
        WORKSPACE,
        graphKey,
        'all',
      );

    const next = seededRandom(42);
    const queries = queriesFor(document, queryCount, next);
    const seeds = Array.from(
      { length: queryCount },
      () => document.nodes[Math.floor(next() * document.nodes.length)]._key,
    );
    const changes = liveChanges(document, overlaySize, next);
    const raw = store.forWorkspace(WORKSPACE);
    const emptyRegistry = new LiveOverlayRegistry();
    const liveRegistry = new LiveOverlayRegistry();
    const notifier = new GraphChangeNotifier();
    let started = performance.now();
    liveRegistry.apply(WORKSPACE, graphKey, changes);
    const applyMs = performance.now() - started;
    const sources: Array<[string, GraphDataSource]> = [
      ['store data source', raw],
      ['overlay, no unsaved change', new OverlayGraphDataSource(raw, emptyRegistry, notifier)],
      [
        `overlay, ${liveRegistry.get(WORKSPACE, graphKey)?.entryCount} unsaved entries`,
        new OverlayGraphDataSource(raw, liveRegistry, notifier),
      ],
    ];

    // Warm-up: the store's search index first (built once per graph revision), then the overlay's
    // first search (its own index and which upserts changed content, once per overlay version).
    await raw.searchNodes(graphKey, 'warm up', 10);
    started = performance.now();
    await sources[2][1].searchNodes(graphKey, 'warm up', 10);
    const firstLiveSearchMs = performance.now() - started;
    for (const [, source] of sources)
      for (const query of queries.slice(0, 20)) await source.searchNodes(graphKey, query, 40);

    const retriever = new GraphRagRetriever({ cacheTTLMs: 0, embeddingProvider: provider });
    const rows: string[][] = [];
    // Two rounds over the three sources; the second (warm JIT, same machine load for all) is reported.
    for (const [label, source] of [...sources, ...sources]) {
      let index = 0;
      const search = await time(() => source.searchNodes(graphKey, queries[index++ % queries.length], 40), queryCount);
      index = 0;
      const walk = await time(
        () => source.getNeighborhood(graphKey, seeds[index++ % seeds.length], 2, 'any'),
        queryCount,
      );
      index = 0;
      const edges = await time(() => source.getEdgesOfNode(graphKey, seeds[index++ % seeds.length], 'any'), queryCount);
      index = 0;
      const retrieve = await time(
        () => retriever.retrieve(source, graphKey, queries[index++ % queries.length]),
        queryCount,
      );
      const all = await time(() => source.getNodes(graphKey), 3);
      if (rows.length >= sources.length) rows.shift();
      rows.push([
        label,
        ...[search, walk, edges, retrieve].flatMap((entry) => [entry.p50, entry.p95]).map((value) => value.toFixed(2)),
        all.p50.toFixed(0),
      ]);
    }

    console.log(
      `Live overlay on a ${document.nodes.length}-node graph (embedded store, ${hybrid ? 'hybrid, local-hash vectors' : 'BM25'}), ${queryCount} calls each, ms.\n` +
        `Applying ${changes.upsertNodes.length} node upserts, ${changes.deleteNodes.length} node deletions, ${changes.upsertEdges.length} edge upserts, ` +
        `${changes.deleteEdges.length} edge deletions: ${applyMs.toFixed(1)} ms; first search after it (overlay index built): ${firstLiveSearchMs.toFixed(1)} ms.`,
    );
    const header = [
      'data source',
      'search p50',
      'search p95',
      'nbhd(2) p50',
      'nbhd(2) p95',
      'edgesOf p50',
      'edgesOf p95',
      'retrieve p50',
      'retrieve p95',
      'getNodes',
    ];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const format = (cells: string[]) =>
      `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
    console.log(format(header));
    console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
    for (const row of rows) console.log(format(row));
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
