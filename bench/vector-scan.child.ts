import { copyFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { encodeVector } from '../src/graph/sqlite/sqlite-graph.codec';
import { configureLogging } from '../src/observability/logger';
import { cpuMsSince, distribution, Distribution } from './bench-statistics';
import { openStoreFile, queryOf, syntheticDataset } from './vector-scan.dataset';
import { SCAN_ENGINES } from './vector-scan.engines';

/**
 * One engine on one dataset, alone in its process (so its memory is its own): the parent
 * (vector-scan.bench.ts) forks it with the dataset's parameters, a copy of the store file to work
 * on, and the exact answers; it answers one EngineRun over IPC.
 */

export interface EngineRunRequest {
  engine: string;
  size: number;
  dimension: number;
  queries: number;
  k: number;
  minScore: number;
  /** A store file of the dataset (vector-scan.dataset.ts writeStoreFile); copied, never changed. */
  storeFile: string;
  /** JSON: the exact top-k ids of each query. */
  truthFile: string;
}

export interface EngineRun {
  engine: string;
  exact: boolean;
  size: number;
  dimension: number;
  /** What persist() took when the vectors were written (vec0 tables); 0 for engines that keep nothing. */
  persistMs: number;
  /** Store file size after persist (MB). */
  fileMb: number;
  /** From the open store to the first answer (start + one search). */
  startupMs: number;
  /** Query latency (ms), after 20 warm-up queries. */
  query: Distribution;
  /** CPU time of the process per query (ms): unlike the latency, it does not count waiting for a core. */
  queryCpu: Distribution;
  /** Mean over queries of |engine ∩ exact| / |exact| (1 when both are empty). */
  recall: number;
  /** Memory the engine added after start-up and the searches, with a full GC before each reading (MB). */
  rssMb: number;
  heapAndBuffersMb: number;
  /** One node's vector rewritten: the engine's update alone, then the first search after it (ms). */
  update: Distribution;
  searchAfterUpdate: Distribution;
  /** Every updated node was found by a search with its new vector. */
  updatesSeen: boolean;
}

/** After two full collections a turn apart: buffers freed by finalizers (SQLite's row blobs) are gone too. */
async function memory(): Promise<{ rss: number; js: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setImmediate(resolve));
  gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, js: usage.heapUsed + usage.external };
}

const MB = 1024 * 1024;

async function run(request: EngineRunRequest): Promise<EngineRun> {
  configureLogging({ level: 'error' });
  const dataset = syntheticDataset(request.size, request.dimension, request.queries);
  const truth = JSON.parse(readFileSync(request.truthFile, 'utf8')) as number[][];
  const engine = SCAN_ENGINES[request.engine]();
  const file = `${request.storeFile}.${request.engine}.${process.pid}`;
  copyFileSync(request.storeFile, file);
  try {
    let db = openStoreFile(file);
    const persistStarted = performance.now();
    engine.persist?.(db, dataset);
    const persistMs = engine.persist ? performance.now() - persistStarted : 0;
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const fileMb = statSync(file).size / MB;

    db = openStoreFile(file);
    const before = await memory();
    const started = performance.now();
    engine.start(db, dataset);
    engine.search(queryOf(dataset, 0), request.k, request.minScore);
    const startupMs = performance.now() - started;

    const latencies: number[] = [];
    const cpuTimes: number[] = [];
    let recallSum = 0;
    for (let query = 0; query < Math.min(20, dataset.queryCount); query += 1)
      engine.search(queryOf(dataset, query), request.k, request.minScore);
    for (let query = 0; query < dataset.queryCount; query += 1) {
      const usage = process.cpuUsage();
      const queryStarted = performance.now();
      const hits = engine.search(queryOf(dataset, query), request.k, request.minScore);
      latencies.push(performance.now() - queryStarted);
      cpuTimes.push(cpuMsSince(usage));
      const exact = new Set(truth[query]);
      recallSum +=
        exact.size === 0 ? (hits.length === 0 ? 1 : 0) : hits.filter((hit) => exact.has(hit.id)).length / exact.size;
    }
    const after = await memory();

    // Rewrite 20 nodes' vectors, as an embedding write or a content change does, each to a query's direction.
    const updates: number[] = [];
    const searchesAfter: number[] = [];
    let updatesSeen = true;
    const write = db.prepare('UPDATE nodes SET embedding = ? WHERE id = ?');
    for (let round = 0; round < 20; round += 1) {
      const id = 1 + ((round * 7_919) % dataset.size);
      const vector = Float32Array.from(queryOf(dataset, round % dataset.queryCount));
      write.run(encodeVector(vector), id);
      const updateStarted = performance.now();
      engine.update(db, id, vector);
      updates.push(performance.now() - updateStarted);
      const searchStarted = performance.now();
      const hits = engine.search(vector, request.k, request.minScore);
      searchesAfter.push(performance.now() - searchStarted);
      if (!hits.some((hit) => hit.id === id)) updatesSeen = false;
    }
    db.close();

    return {
      engine: request.engine,
      exact: engine.exact,
      size: request.size,
      dimension: request.dimension,
      persistMs,
      fileMb,
      startupMs,
      query: distribution(latencies),
      queryCpu: distribution(cpuTimes),
      recall: recallSum / dataset.queryCount,
      rssMb: (after.rss - before.rss) / MB,
      heapAndBuffersMb: (after.js - before.js) / MB,
      update: distribution(updates),
      searchAfterUpdate: distribution(searchesAfter),
      updatesSeen,
    };
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
}

process.once('message', (request: EngineRunRequest) => {
  run(request).then(
    (result) => process.send?.({ ok: true, run: result }, () => process.exit(0)),
    (error: unknown) =>
      process.send?.(
        { ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) },
        () => process.exit(1),
      ),
  );
});
