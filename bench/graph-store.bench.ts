import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { EdgeDirection } from '../src/graph/graph-data-source';
import { SqliteGraphStore } from '../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../src/observability/logger';
import { numberArgument, numberListArgument } from './bench-arguments';
import { cpuMsSince, percentile } from './bench-statistics';
import { formatTable } from './bench-table';
import { poolQuestions } from './pool-questions';
import { seededRandom } from '../test/support/seeded-random';
import { buildPoolGraph } from './workflow-pool.graph-builder';

/**
 * Latency of the embedded store's read paths on one large graph built from the real workflow pool
 * (each workflow on its own sheet): lexical search, vector search (one model, exact scan), BFS,
 * batch fetch, and a retrieval-shaped sequence of them (search + vector + 5 neighbourhoods +
 * fetch), each measured after the per-graph indexes are built. Also: import, index builds, and the
 * rebuild a write costs the next search.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/graph-store.bench.js [--nodes 20000] [--runs 300] [--dims 384,1536]
 */

const WORKSPACE = 'bench';
const GRAPH_KEY = 'pool';

interface Row {
  operation: string;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** CPU time of the process during the call: on a busy machine wall time also counts waiting for a core. */
  cpuP95: number;
  note: string;
}

async function timeRuns(operation: string, runs: number, call: (run: number) => Promise<string | void>): Promise<Row> {
  for (let run = 0; run < Math.min(20, runs); run += 1) await call(runs + run); // JIT warm-up on other inputs
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  let note = '';
  for (let run = 0; run < runs; run += 1) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    note = (await call(run)) || note;
    samples.push(performance.now() - started);
    cpuSamples.push(cpuMsSince(cpu));
  }
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  return {
    operation,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: samples[samples.length - 1],
    cpuP95: percentile(cpuSamples, 95),
    note,
  };
}

/** "wall ms (cpu ms)" of one call. */
async function timeOnce(call: () => Promise<unknown>): Promise<string> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await call();
  const wall = performance.now() - started;
  return `${wall.toFixed(0)} ms (cpu ${cpuMsSince(cpu).toFixed(0)} ms)`;
}

function unitVector(dimension: number, next: () => number): Float32Array {
  const vector = new Float32Array(dimension);
  let norm = 0;
  for (let index = 0; index < dimension; index += 1) {
    vector[index] = next() * 2 - 1;
    norm += vector[index] * vector[index];
  }
  for (let index = 0; index < dimension; index += 1) vector[index] /= Math.sqrt(norm);
  return vector;
}

/** A query close to a stored vector (cosine ≈ 0.8), so the threshold keeps real hits. */
function nearby(base: Float32Array, next: () => number): Float32Array {
  const noise = unitVector(base.length, next);
  return base.map((value, index) => value * 0.8 + noise[index] * 0.6);
}

function printTable(title: string, rows: Row[]): void {
  const header = ['operation', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'cpu p95 ms', 'note'];
  const lines = rows.map((row) => [
    row.operation,
    ...[row.p50, row.p95, row.p99, row.max, row.cpuP95].map((value) => value.toFixed(3)),
    row.note,
  ]);
  console.log(title);
  for (const line of formatTable(header, lines, [0, 6])) console.log(line);
}

export async function runGraphStoreBench(
  options: { nodes?: number; runs?: number; dims?: number[] } = {},
): Promise<Row[]> {
  configureLogging({ level: 'error' });
  const nodeCount = options.nodes ?? 20_000;
  const runs = options.runs ?? 300;
  const dims = options.dims ?? [384, 1536];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'graph-store-bench-'));
  const db = openSqliteDatabase(dataDir);
  const store = new SqliteGraphStore(db);
  const source = store.forWorkspace(WORKSPACE);
  const rows: Row[] = [];
  const setup: string[] = [];
  try {
    const document = buildPoolGraph(nodeCount, GRAPH_KEY, WORKSPACE);
    setup.push(
      `graph: ${document.nodes.length} nodes, ${document.edges.length} edges, ${Object.keys(document.graph.sheetsList).length} sheets`,
    );
    setup.push(`import: ${await timeOnce(() => store.importGraph(WORKSPACE, document))}`);
    setup.push(
      `BM25 index build (first search): ${await timeOnce(() => source.searchNodes(GRAPH_KEY, 'warm up', 10))}`,
    );

    const queries = poolQuestions(document, runs * 2, 42);
    let hitTotal = 0;
    rows.push(
      await timeRuns('searchNodes (k=10)', runs, async (run) => {
        hitTotal += (await source.searchNodes(GRAPH_KEY, queries[run % queries.length], 10)).length;
      }),
    );
    rows[rows.length - 1].note = `${(hitTotal / (runs + Math.min(20, runs))).toFixed(1)} hits/query`;

    const next = seededRandom(7);
    const keyAt = () => document.nodes[Math.floor(next() * document.nodes.length)]._key;
    for (const [depth, direction] of [
      [1, 'any'],
      [2, 'any'],
      [3, 'any'],
      [2, 'out'],
    ] as Array<[number, EdgeDirection]>) {
      let reached = 0;
      const row = await timeRuns(`getNeighborhood (depth ${depth}, ${direction})`, runs, async () => {
        reached += (await source.getNeighborhood(GRAPH_KEY, keyAt(), depth, direction)).nodes.length;
      });
      row.note = `${(reached / (runs + Math.min(20, runs))).toFixed(1)} nodes reached`;
      rows.push(row);
    }
    rows.push(
      await timeRuns(
        'getNodesByKeys (20 keys)',
        runs,
        async () => void (await source.getNodesByKeys(GRAPH_KEY, Array.from({ length: 20 }, keyAt))),
      ),
    );
    rows.push(await timeRuns('getNodeByKey', runs, async () => void (await source.getNodeByKey(GRAPH_KEY, keyAt()))));
    rows.push(
      await timeRuns(
        'getEdgesOfNode (any)',
        runs,
        async () => void (await source.getEdgesOfNode(GRAPH_KEY, keyAt(), 'any')),
      ),
    );

    // A node keeps ONE vector (one model): each dimension replaces the previous one's, then is measured.
    for (const dimension of dims) {
      const model = `bench-${dimension}`;
      const vectorRandom = seededRandom(dimension);
      const vectors = document.nodes.map(() => unitVector(dimension, vectorRandom));
      const entries = document.nodes.map((node, index) => ({
        nodeKey: node._key,
        vector: vectors[index],
        model,
        hash: 'bench',
      }));
      setup.push(
        `saveEmbeddings ${dimension}d × ${entries.length}: ${await timeOnce(() => store.saveEmbeddings(WORKSPACE, GRAPH_KEY, entries))}`,
      );
      const query = { vector: vectors[0], model, minScore: 0.3 };
      setup.push(
        `vector index build ${dimension}d (first vector search): ${await timeOnce(() => source.searchNodesByVector(GRAPH_KEY, query, 10))}`,
      );
      let hits = 0;
      const row = await timeRuns(`searchNodesByVector (${dimension}d, k=10)`, runs, async () => {
        const target = vectors[Math.floor(next() * vectors.length)];
        hits += (
          await source.searchNodesByVector(GRAPH_KEY, { vector: nearby(target, next), model, minScore: 0.3 }, 10)
        ).length;
      });
      row.note = `exact, ${vectors.length} rows (int8 pre-scan + exact rescoring), ${(hits / (runs + Math.min(20, runs))).toFixed(1)} hits/query`;
      rows.push(row);

      // Retrieval-shaped: what GraphRagRetriever asks of the store for one question (no embedding call).
      const sequence = await timeRuns(`retrieval sequence (BM25 + ${dimension}d vector)`, runs, async (run) => {
        const lexical = await source.searchNodes(GRAPH_KEY, queries[run % queries.length], 10);
        const semantic = await source.searchNodesByVector(
          GRAPH_KEY,
          { vector: nearby(vectors[run % vectors.length], next), model, minScore: 0.3 },
          10,
        );
        if (semantic.length === 0)
          throw new Error('the vector search found nothing: the sequence would not measure it');
        const seeds = [...new Set([...lexical, ...semantic].map((hit) => hit.node._key))].slice(0, 5);
        const reached = new Set<string>(seeds);
        for (const seed of seeds)
          for (const node of (await source.getNeighborhood(GRAPH_KEY, seed, 2, 'any')).nodes) reached.add(node._key);
        await source.getNodesByKeys(GRAPH_KEY, [...reached].slice(0, 20));
      });
      sequence.note = 'search + vector + 5 × BFS(2, any) + fetch 20';
      rows.push(sequence);
    }

    // A write bumps the revision: the next search rebuilds the BM25 index (vectors are rebuilt per model on demand).
    const victim = document.nodes[1];
    setup.push(
      `first search after a write (index rebuild): ${await timeOnce(async () => {
        await source.updateNode(GRAPH_KEY, { ...victim, posX: victim.posX + 1 });
        await source.searchNodes(GRAPH_KEY, 'send email', 10);
      })}`,
    );
  } finally {
    await store.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`Embedded graph store (SQLite), ${runs} calls per row after warm-up, indexes built`);
  for (const line of setup) console.log(`  ${line}`);
  printTable('', rows);
  return rows;
}

if (require.main === module) {
  runGraphStoreBench({
    nodes: numberArgument('nodes'),
    runs: numberArgument('runs'),
    dims: numberListArgument('dims'),
  }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
