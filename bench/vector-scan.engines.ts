import type { Database, Statement } from 'better-sqlite3';
import { paddedWidth } from '../src/graph/search/dot-product.kernel';
import { JsDotProductKernel } from '../src/graph/search/js-dot-product.kernel';
import { VectorIndex, VectorIndexOptions } from '../src/graph/search/vector.index';
import { decodeVector, encodeVector } from '../src/graph/sqlite/sqlite-graph.codec';
import { GRAPH_ID, MODEL, VectorDataset } from './vector-scan.dataset';

export interface ScoredId {
  id: number;
  score: number;
}

/**
 * One way of answering the vector search of the embedded store: the top `k` nodes of one graph
 * and model by cosine similarity above `minScore`. `persist` is what the store would do when vectors
 * are written (e.g. keep a vec0 table), `start` what a process does before its first search, and
 * `update` what follows a write of one node's vector (already written to `nodes.embedding`).
 */
export interface ScanEngine {
  readonly name: string;
  /** False: an index or quantized scan whose results may differ from the exact ones (recall is measured). */
  readonly exact: boolean;
  readonly description: string;
  persist?(db: Database, dataset: VectorDataset): void;
  start(db: Database, dataset: VectorDataset): void;
  search(query: Float32Array, k: number, minScore: number): ScoredId[];
  update(db: Database, id: number, vector: Float32Array): void;
}

interface StoredVector {
  id: number;
  embedding: Buffer;
}

function storedVectors(db: Database): StoredVector[] {
  return db
    .prepare('SELECT id, embedding FROM nodes WHERE graph_id = ? AND embedding_model = ? ORDER BY id')
    .all(GRAPH_ID, MODEL) as StoredVector[];
}

/** The project's VectorIndex (src/graph/search), built from the stored blobs as SqliteVectorIndexUpdater builds it. */
function vectorIndexEngine(name: string, description: string, options: VectorIndexOptions): ScanEngine {
  let index: VectorIndex;
  return {
    name,
    exact: true,
    description,
    start: (db) => {
      index = VectorIndex.build(
        storedVectors(db).map((row) => ({ key: String(row.id), vector: decodeVector(row.embedding), order: row.id })),
        options,
      );
    },
    search: (query, k, minScore) =>
      index.search(query, minScore, k).map((hit) => ({ id: Number(hit.key), score: hit.score })),
    update: (_db, id, vector) => {
      index.set(String(id), vector, id);
    },
  };
}

/** sqlite-vec's scalar functions and vec0 tables, in the connection of the store. */
function loadSqliteVec(db: Database): void {
  // Required lazily: a dev dependency, for this bench only.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a dev dependency, loaded only by this bench
  (require('sqlite-vec') as { load(db: Database): void }).load(db);
}

/** Quantizes a vector to int8 with its own scale (cosine does not see a per-vector scale). */
function int8Of(vector: Float32Array): Buffer {
  let maxAbs = 0;
  for (const value of vector) maxAbs = Math.max(maxAbs, Math.abs(value));
  const quantized = new Int8Array(vector.length);
  for (let index = 0; index < vector.length; index += 1)
    quantized[index] = maxAbs === 0 ? 0 : Math.round((vector[index] / maxAbs) * 127);
  return Buffer.from(quantized.buffer);
}

function vec0Engine(name: string, description: string, element: 'float' | 'int8'): ScanEngine {
  let knn: Statement;
  const blobOf = (vector: Float32Array) => (element === 'float' ? encodeVector(vector) : int8Of(vector));
  const cast = element === 'float' ? '?' : 'vec_int8(?)';
  return {
    name,
    exact: element === 'float',
    description,
    persist: (db, dataset) => {
      loadSqliteVec(db);
      db.exec(
        `CREATE VIRTUAL TABLE node_vectors USING vec0(graph_id INTEGER PARTITION KEY, embedding_model TEXT, embedding ${element}[${dataset.dimension}] distance_metric=cosine)`,
      );
      const insert = db.prepare(
        `INSERT INTO node_vectors (rowid, graph_id, embedding_model, embedding) VALUES (?, ?, ?, ${cast})`,
      );
      db.transaction(() => {
        for (const row of storedVectors(db))
          insert.run(BigInt(row.id), BigInt(GRAPH_ID), MODEL, blobOf(decodeVector(row.embedding)));
      })();
    },
    start: (db) => {
      loadSqliteVec(db);
      knn = db.prepare(
        `SELECT rowid AS id, distance FROM node_vectors WHERE embedding MATCH ${cast} AND k = ? AND graph_id = ? AND embedding_model = ? ORDER BY distance`,
      );
    },
    search: (query, k, minScore) =>
      (knn.all(blobOf(query), k, BigInt(GRAPH_ID), MODEL) as Array<{ id: number; distance: number }>)
        .map((row) => ({ id: row.id, score: 1 - row.distance }))
        .filter((hit) => hit.score > minScore),
    update: (db, id, vector) => {
      if (element === 'float') {
        db.prepare('UPDATE node_vectors SET embedding = ? WHERE rowid = ?').run(blobOf(vector), BigInt(id));
        return;
      }
      // vec0 refuses an UPDATE of an int8 column (0.1.9 reads the new value as float32): delete and insert again.
      db.transaction(() => {
        db.prepare('DELETE FROM node_vectors WHERE rowid = ?').run(BigInt(id));
        db.prepare(
          `INSERT INTO node_vectors (rowid, graph_id, embedding_model, embedding) VALUES (?, ?, ?, ${cast})`,
        ).run(BigInt(id), BigInt(GRAPH_ID), MODEL, blobOf(vector));
      })();
    },
  };
}

function scalarScanEngine(): ScanEngine {
  let scan: Statement;
  return {
    name: 'sqlite-vec-scan',
    exact: true,
    description: "sqlite-vec's vec_distance_cosine over the nodes table as it is (no new table), ORDER BY … LIMIT k",
    start: (db) => {
      loadSqliteVec(db);
      scan = db.prepare(
        'SELECT id, vec_distance_cosine(embedding, ?) AS distance FROM nodes WHERE graph_id = ? AND embedding_model = ? ORDER BY distance, id LIMIT ?',
      );
    },
    search: (query, k, minScore) =>
      (scan.all(encodeVector(query), GRAPH_ID, MODEL, k) as Array<{ id: number; distance: number }>)
        .map((row) => ({ id: row.id, score: 1 - row.distance }))
        .filter((hit) => hit.score > minScore),
    update: () => undefined,
  };
}

interface Usearch {
  Index: new (options: object) => {
    add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
    remove(keys: bigint): number;
    search(vector: Float32Array, k: number, threads?: number): { keys: BigUint64Array; distances: Float32Array };
  };
  exactSearch(
    dataset: Float32Array,
    queries: Float32Array,
    dimensions: number,
    count: number,
    metric: string,
    threads?: number,
  ): { keys: BigUint64Array; distances: Float32Array };
}

function usearch(): Usearch {
  // Required lazily: a dev dependency, for this bench only.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a dev dependency, loaded only by this bench
  return require('usearch') as Usearch;
}

function matrixOf(db: Database, dimension: number): { ids: number[]; matrix: Float32Array } {
  const rows = storedVectors(db);
  const matrix = new Float32Array(rows.length * dimension);
  rows.forEach((row, position) => matrix.set(decodeVector(row.embedding), position * dimension));
  return { ids: rows.map((row) => row.id), matrix };
}

const hitsOf = (
  keys: BigUint64Array,
  distances: Float32Array,
  idOf: (key: number) => number,
  minScore: number,
): ScoredId[] =>
  Array.from(keys, (key, position) => ({ id: idOf(Number(key)), score: 1 - distances[position] })).filter(
    (hit) => hit.score > minScore,
  );

function usearchExactEngine(): ScanEngine {
  let ids: number[] = [];
  let matrix: Float32Array = new Float32Array(0);
  let dimension = 0;
  const rowById = new Map<number, number>();
  return {
    name: 'usearch-exact',
    exact: true,
    description: "usearch's exactSearch (native SIMD brute force, 1 thread) over the vectors held in a Float32Array",
    start: (db, dataset) => {
      dimension = dataset.dimension;
      ({ ids, matrix } = matrixOf(db, dimension));
      ids.forEach((id, row) => rowById.set(id, row));
    },
    search: (query, k, minScore) => {
      // exactSearch reads a view from the start of its buffer: hand it a query of its own.
      const { keys, distances } = usearch().exactSearch(
        matrix,
        query.byteOffset === 0 ? query : query.slice(),
        dimension,
        k,
        'cos',
        1,
      );
      return hitsOf(keys, distances, (row) => ids[row], minScore);
    },
    update: (_db, id, vector) => {
      matrix.set(vector, (rowById.get(id) as number) * dimension);
    },
  };
}

function usearchHnswEngine(name: string, quantization: 'f32' | 'i8'): ScanEngine {
  let index: InstanceType<Usearch['Index']>;
  return {
    name,
    exact: false,
    description: `usearch HNSW index (approximate), ${quantization}, connectivity 16, built with 1 thread`,
    start: (db, dataset) => {
      const { ids, matrix } = matrixOf(db, dataset.dimension);
      index = new (usearch().Index)({ dimensions: dataset.dimension, metric: 'cos', quantization, connectivity: 16 });
      index.add(
        BigUint64Array.from(ids, (id) => BigInt(id)),
        matrix,
        1,
      );
    },
    search: (query, k, minScore) => {
      const { keys, distances } = index.search(query, k, 1);
      return hitsOf(keys, distances, (key) => key, minScore);
    },
    update: (_db, id, vector) => {
      index.remove(BigInt(id));
      index.add(BigUint64Array.of(BigInt(id)), vector, 1);
    },
  };
}

/** Every engine the bench compares, by name. */
export const SCAN_ENGINES: Record<string, () => ScanEngine> = {
  kernels: () =>
    vectorIndexEngine(
      'kernels',
      'VectorIndex as shipped: float32 WebAssembly SIMD scan, int8 SIMD pre-scan with exact rescoring from 1,024 rows',
      {},
    ),
  'kernels-f32': () =>
    vectorIndexEngine('kernels-f32', 'VectorIndex, float32 WebAssembly SIMD scan only (no int8 pre-scan)', {
      minRowsForPrescan: Number.POSITIVE_INFINITY,
    }),
  'kernels-js': () =>
    vectorIndexEngine('kernels-js', 'VectorIndex with the plain JavaScript dot product (no WebAssembly, no pre-scan)', {
      minRowsForPrescan: Number.POSITIVE_INFINITY,
      createKernel: (rows, dimension) => new JsDotProductKernel(rows, paddedWidth(dimension)),
    }),
  'sqlite-vec': () =>
    vec0Engine(
      'sqlite-vec',
      'sqlite-vec vec0 table, float[D], cosine, graph as partition key, model as metadata column',
      'float',
    ),
  'sqlite-vec-int8': () =>
    vec0Engine('sqlite-vec-int8', 'sqlite-vec vec0 table, int8[D] (per-vector scale), cosine (approximate)', 'int8'),
  'sqlite-vec-scan': scalarScanEngine,
  'usearch-exact': usearchExactEngine,
  'usearch-hnsw': () => usearchHnswEngine('usearch-hnsw', 'f32'),
  'usearch-hnsw-i8': () => usearchHnswEngine('usearch-hnsw-i8', 'i8'),
};
