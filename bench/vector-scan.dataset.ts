import BetterSqlite3, { Database } from 'better-sqlite3';
import { encodeVector } from '../src/graph/sqlite/sqlite-graph.codec';
import { seededRandom } from '../test/support/seeded-random';

/** The graph and model of every stored vector (one graph: the filter is the embedded store's `graph_id, embedding_model`). */
export const GRAPH_ID = 1;
export const MODEL = 'bench-embedding';

export interface VectorDataset {
  size: number;
  dimension: number;
  /** `size` rows of `dimension` floats, unit length; row i is node id i + 1. */
  vectors: Float32Array;
  queryCount: number;
  /** `queryCount` rows of `dimension` floats, unit length. */
  queries: Float32Array;
}

function gaussian(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

/** Writes center + spread × (a random unit direction), normalized, at `offset`. */
function writeNear(
  target: Float32Array,
  offset: number,
  center: Float32Array,
  spread: number,
  next: () => number,
): void {
  const dimension = center.length;
  const noise = new Float64Array(dimension);
  let noiseNorm = 0;
  for (let index = 0; index < dimension; index += 1) {
    noise[index] = gaussian(next);
    noiseNorm += noise[index] * noise[index];
  }
  noiseNorm = Math.sqrt(noiseNorm);
  let norm = 0;
  for (let index = 0; index < dimension; index += 1) {
    const value = center[index] + (spread * noise[index]) / noiseNorm;
    target[offset + index] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  for (let index = 0; index < dimension; index += 1) target[offset + index] /= norm;
}

/**
 * Embedding-like vectors: topics (one per 50 nodes) with nodes spread around them (cosine ≈ 0.55
 * within a topic, ≈ 0 across), and questions near a topic, so a query has a few tens of clear
 * matches above a long tail, as with real embeddings (uniform random vectors would have none).
 */
export function syntheticDataset(size: number, dimension: number, queryCount: number, seed = 20): VectorDataset {
  const next = seededRandom(seed * 1_000_003 + size * 31 + dimension);
  const topics = Math.max(8, Math.round(size / 50));
  const centers = Array.from({ length: topics }, () => {
    const center = new Float32Array(dimension);
    writeNear(center, 0, new Float32Array(dimension), 1, next);
    return center;
  });
  const vectors = new Float32Array(size * dimension);
  for (let row = 0; row < size; row += 1)
    writeNear(vectors, row * dimension, centers[Math.floor(next() * topics)], 0.9, next);
  const queries = new Float32Array(queryCount * dimension);
  for (let row = 0; row < queryCount; row += 1)
    writeNear(queries, row * dimension, centers[Math.floor(next() * topics)], 1, next);
  return { size, dimension, vectors, queryCount, queries };
}

export function rowOf(dataset: VectorDataset, row: number): Float32Array {
  return dataset.vectors.subarray(row * dataset.dimension, (row + 1) * dataset.dimension);
}

export function queryOf(dataset: VectorDataset, query: number): Float32Array {
  return dataset.queries.subarray(query * dataset.dimension, (query + 1) * dataset.dimension);
}

/** The embedded store's connection settings (src/database/sqlite/sqlite-database.opener.ts). */
export function openStoreFile(file: string): Database {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/**
 * A file shaped like the embedded store's nodes table (a JSON document of ~1 KB beside each
 * Float32 little-endian embedding, as `graph_nodes` keeps them), holding the dataset as one graph.
 */
export function writeStoreFile(file: string, dataset: VectorDataset): void {
  const db = openStoreFile(file);
  db.exec(`
    CREATE TABLE nodes (
      id INTEGER PRIMARY KEY,
      graph_id INTEGER NOT NULL,
      key TEXT NOT NULL,
      document TEXT NOT NULL,
      embedding BLOB,
      embedding_model TEXT
    );
    CREATE INDEX nodes_by_graph ON nodes (graph_id, embedding_model);
  `);
  const insert = db.prepare(
    'INSERT INTO nodes (id, graph_id, key, document, embedding, embedding_model) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const filler = 'x'.repeat(900);
  db.transaction(() => {
    for (let row = 0; row < dataset.size; row += 1) {
      const document = JSON.stringify({ _key: `node-${row}`, type: 'bench', process: filler });
      insert.run(
        row + 1,
        GRAPH_ID,
        `node-${row}`,
        document,
        encodeVector(Float32Array.from(rowOf(dataset, row))),
        MODEL,
      );
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Exact top-k node ids per query above `minScore` (double-precision cosine, plain loops): the reference for recall. */
export function exactTopK(dataset: VectorDataset, k: number, minScore: number): number[][] {
  const { dimension, size } = dataset;
  const result: number[][] = [];
  for (let query = 0; query < dataset.queryCount; query += 1) {
    const q = queryOf(dataset, query);
    const scored: Array<{ id: number; score: number }> = [];
    for (let row = 0; row < size; row += 1) {
      let dot = 0;
      const offset = row * dimension;
      for (let index = 0; index < dimension; index += 1) dot += q[index] * dataset.vectors[offset + index];
      if (dot > minScore) scored.push({ id: row + 1, score: dot });
    }
    scored.sort((a, b) => b.score - a.score || a.id - b.id);
    result.push(scored.slice(0, k).map((hit) => hit.id));
  }
  return result;
}
