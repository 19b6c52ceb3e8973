/*
 * Optional: a cosine vector index on nodius_nodes.embedding, which the service then uses for vector
 * search (APPROX_NEAR_COSINE) instead of an exact COSINE_SIMILARITY scan. Worth it from tens of
 * thousands of embedded nodes; below that the exact scan is fast and exact.
 *
 * Needs ArangoDB 3.12.6+ started with --experimental-vector-index=true (the option cannot be turned
 * off again for that data directory), ONE embedding model (one dimension: a vector of another length
 * is refused by the index), and nodes already embedded (`npm run ai:embed-nodes`): the index is
 * trained once on the vectors present when it is built.
 *
 *   docker compose exec arangodb arangosh --server.password "$ARANGO_PASSWORD" --server.database nodius \
 *     --javascript.execute /opt/graph-ai/create-vector-index.js -- 1536
 *
 * The argument is the dimension (1536 for text-embedding-3-small, 512 for local-hash-v1-512).
 * Restart the service afterwards: it detects the index at start (log line arango_schema_ready).
 */
'use strict';
const db = require('@arangodb').db;

const dimension = Number(ARGUMENTS[0]);
if (!Number.isInteger(dimension) || dimension <= 0) {
  throw new Error('usage: create-vector-index.js -- <dimension>');
}
const nodes = db._collection('nodius_nodes');
if (!nodes) throw new Error('collection nodius_nodes not found in database ' + db._name());

const embedded = db
  ._query('FOR n IN nodius_nodes FILTER IS_ARRAY(n.embedding) AND LENGTH(n.embedding) == @dimension COLLECT WITH COUNT INTO c RETURN c', { dimension })
  .toArray()[0];
if (embedded === 0) throw new Error('no node has a vector of dimension ' + dimension + ': embed the nodes first');

// Rule of thumb for IVF: about sqrt(n) centroids, at least 1, at most the number of vectors.
const nLists = Math.max(1, Math.min(embedded, Math.round(Math.sqrt(embedded))));
const index = nodes.ensureIndex({
  type: 'vector',
  name: 'nodius_ai_embedding_cosine',
  fields: ['embedding'],
  // Nodes without a vector (not embedded yet) are left out of the index instead of being refused.
  sparse: true,
  params: { metric: 'cosine', dimension, nLists },
});
print('vector index ' + index.name + ': ' + embedded + ' vectors, dimension ' + dimension + ', nLists ' + nLists);
