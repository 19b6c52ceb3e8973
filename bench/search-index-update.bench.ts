import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { GraphNode } from '../src/graph/graph.types';
import { MutableGraphDataSource } from '../src/graph/mutable-graph-data-source';
import { SqliteGraphStore } from '../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../src/observability/logger';
import { buildPoolGraph } from './workflow-pool.graph-builder';

/**
 * What one small write costs the next lexical search on a large graph of the embedded store: a
 * one-node content change (HITL apply, saved change from the sync feed) or a move, written by this
 * process or by another one sharing the file, then the first searchNodes after it. Each round
 * writes a different node; wall and CPU time of the search alone.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/search-index-update.bench.js [--nodes 20000] [--rounds 20]
 */

const WORKSPACE = 'bench';
const GRAPH_KEY = 'pool';
const QUERIES = ['send slack message', 'http request error', 'google sheets append row', 'openai chat model'];

interface Row {
  case: string;
  p50: number;
  p95: number;
  max: number;
  cpuP50: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function measure(
  name: string,
  rounds: number,
  write: (round: number) => Promise<void>,
  searcher: MutableGraphDataSource,
): Promise<Row> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    await write(round);
    const usage = process.cpuUsage();
    const started = performance.now();
    await searcher.searchNodes(GRAPH_KEY, QUERIES[round % QUERIES.length], 20);
    wall.push(performance.now() - started);
    const used = process.cpuUsage(usage);
    cpu.push((used.user + used.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { case: name, p50: percentile(wall, 50), p95: percentile(wall, 95), max: wall[wall.length - 1], cpuP50: percentile(cpu, 50) };
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

export async function runSearchIndexUpdateBench(options: { nodes?: number; rounds?: number } = {}): Promise<Row[]> {
  configureLogging({ level: 'error' });
  const nodeCount = options.nodes ?? 20_000;
  const rounds = options.rounds ?? 20;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'search-index-update-bench-'));
  const db = openSqliteDatabase(dataDir);
  const otherDb = openSqliteDatabase(dataDir);
  const store = new SqliteGraphStore(db);
  const rows: Row[] = [];
  try {
    const document = buildPoolGraph(nodeCount, GRAPH_KEY, WORKSPACE);
    await store.importGraph(WORKSPACE, document);
    const source = store.forWorkspace(WORKSPACE);
    const other = new SqliteGraphStore(otherDb).forWorkspace(WORKSPACE);
    let started = performance.now();
    await source.searchNodes(GRAPH_KEY, 'warm up', 20);
    const buildMs = performance.now() - started;

    const withCode = document.nodes.filter((node) => typeof node.process === 'string' && node.process.length > 200);
    const nodeFor = (round: number, offset: number): GraphNode => withCode[(round * 97 + offset) % withCode.length];
    const edit = async (target: MutableGraphDataSource, node: GraphNode, round: number) => {
      const stored = (await target.getNodeByKey(GRAPH_KEY, node._key)) as GraphNode;
      await target.updateNode(GRAPH_KEY, { ...stored, process: `${stored.process ?? ''}\n// reviewed ${round}` });
    };
    rows.push(await measure('one-node content write, this process', rounds, (round) => edit(source, nodeFor(round, 0), round), source));
    rows.push(await measure('one-node content write, another process', rounds, (round) => edit(other, nodeFor(round, 1), round), source));
    rows.push(
      await measure(
        'one-node move, this process',
        rounds,
        async (round) => {
          const node = nodeFor(round, 2);
          await source.applyChanges(GRAPH_KEY, {
            instructions: [{ nodeKey: node._key, op: 'set', path: ['posX'], value: round }],
            nodesToCreate: [],
            edgesToCreate: [],
            nodeKeysToDelete: [],
            edgeKeysToDelete: [],
          });
        },
        source,
      ),
    );
    console.log(`First lexical search after a small write, ${document.nodes.length} nodes, ${rounds} rounds per case (ms; full index build: ${buildMs.toFixed(0)} ms)`);
    console.log('| case | p50 | p95 | max | cpu p50 |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) {
      console.log(`| ${row.case} | ${row.p50.toFixed(1)} | ${row.p95.toFixed(1)} | ${row.max.toFixed(1)} | ${row.cpuP50.toFixed(1)} |`);
    }
  } finally {
    await store.close();
    otherDb.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (require.main === module) {
  runSearchIndexUpdateBench({
    nodes: argument('--nodes') ? Number(argument('--nodes')) : undefined,
    rounds: argument('--rounds') ? Number(argument('--rounds')) : undefined,
  }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
