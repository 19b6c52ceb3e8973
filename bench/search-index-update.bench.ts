import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { GraphNode } from '../src/graph/graph.types';
import { MutableGraphDataSource } from '../src/graph/mutable-graph-data-source';
import { SqliteGraphStore } from '../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../src/observability/logger';
import { numberArgument } from './bench-arguments';
import { cpuMsSince, distribution, Distribution } from './bench-statistics';
import { formatTable } from './bench-table';
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
  wall: Distribution;
  cpu: Distribution;
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
    cpu.push(cpuMsSince(usage));
  }
  return { case: name, wall: distribution(wall), cpu: distribution(cpu) };
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
    const started = performance.now();
    await source.searchNodes(GRAPH_KEY, 'warm up', 20);
    const buildMs = performance.now() - started;

    const withCode = document.nodes.filter((node) => typeof node.process === 'string' && node.process.length > 200);
    const nodeFor = (round: number, offset: number): GraphNode => withCode[(round * 97 + offset) % withCode.length];
    const edit = async (target: MutableGraphDataSource, node: GraphNode, round: number) => {
      const stored = (await target.getNodeByKey(GRAPH_KEY, node._key)) as GraphNode;
      await target.updateNode(GRAPH_KEY, { ...stored, process: `${stored.process ?? ''}\n// reviewed ${round}` });
    };
    rows.push(
      await measure(
        'one-node content write, this process',
        rounds,
        (round) => edit(source, nodeFor(round, 0), round),
        source,
      ),
    );
    rows.push(
      await measure(
        'one-node content write, another process',
        rounds,
        (round) => edit(other, nodeFor(round, 1), round),
        source,
      ),
    );
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
    console.log(
      `First lexical search after a small write, ${document.nodes.length} nodes, ${rounds} rounds per case (ms; full index build: ${buildMs.toFixed(0)} ms)`,
    );
    const lines = formatTable(
      ['case', 'p50', 'p95', 'max', 'cpu p50'],
      rows.map((row) => [
        row.case,
        row.wall.p50.toFixed(1),
        row.wall.p95.toFixed(1),
        row.wall.max.toFixed(1),
        row.cpu.p50.toFixed(1),
      ]),
    );
    for (const line of lines) console.log(line);
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
    nodes: numberArgument('--nodes'),
    rounds: numberArgument('--rounds'),
  }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
