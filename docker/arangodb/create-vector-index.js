/*
 * Optional: a cosine vector index on nodius_nodes.embedding, which the service then uses for vector
 * search of large graphs (APPROX_NEAR_COSINE) instead of an exact COSINE_SIMILARITY scan. Worth it
 * from tens of thousands of embedded nodes; graphs under 5,000 nodes are always scanned exactly.
 * See docs/graph-store.md, "Vector search on ArangoDB".
 *
 * Needs ArangoDB 3.12.6+ started with --vector-index=true (docker-compose.yml does; the option cannot
 * be turned off again for that data directory; it was --experimental-vector-index before 3.12.6),
 * ONE embedding model (one dimension: a vector of another length is refused by the index), and nodes
 * already embedded (`npm run ai:embed-nodes`): the index is trained once on the vectors present when
 * it is built (up to 3.12.8 it cannot even be created without them).
 *
 *   docker compose exec arangodb arangosh --server.password "$ARANGO_PASSWORD" --server.database nodius \
 *     --javascript.execute /opt/graph-ai/create-vector-index.js -- 1536
 *
 * The argument is the dimension (1536 for text-embedding-3-small, 512 for local-hash-v1-512).
 * To rebuild it (after many new vectors, or another model), drop it first:
 *   db.nodius_nodes.dropIndex('nodius_ai_embedding_cosine')
 * It is built in the background (Nodius keeps writing meanwhile), so it may still be training when
 * this script returns: restart the service once `db.nodius_nodes.indexes(false, true)` lists it
 * without `progress` (and, from 3.12.9, with trainingState "ready"). The service detects the index at
 * start (log line arango_schema_ready, or arango_vector_index_ignored with the reason).
 */
'use strict';
const db = require('@arangodb').db;

const INDEX_NAME = 'nodius_ai_embedding_cosine';

/** Dotted versions compared numerically: "3.12.10" is after "3.12.6". */
function atLeast(version, wanted) {
  const parse = (text) =>
    text
      .split('-')[0]
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const have = parse(version);
  const need = parse(wanted);
  for (let index = 0; index < need.length; index += 1) {
    if ((have[index] || 0) !== need[index]) return (have[index] || 0) > need[index];
  }
  return true;
}

const dimension = Number(ARGUMENTS[0]);
if (!Number.isInteger(dimension) || dimension <= 0) {
  throw new Error('usage: create-vector-index.js -- <dimension>');
}
const version = db._version();
if (!atLeast(version, '3.12.6')) {
  throw new Error('ArangoDB ' + version + ' cannot filter a vector index lookup by graph: 3.12.6 or later is needed');
}
const nodes = db._collection('nodius_nodes');
if (!nodes) throw new Error('collection nodius_nodes not found in database ' + db._name());

const embedded = db
  ._query(
    'FOR n IN nodius_nodes FILTER IS_ARRAY(n.embedding) AND LENGTH(n.embedding) == @dimension COLLECT WITH COUNT INTO c RETURN c',
    { dimension },
  )
  .toArray()[0];
if (embedded === 0) throw new Error('no node has a vector of dimension ' + dimension + ': embed the nodes first');

// About 4·√n centroids (ArangoDB's own default rule, from autofaiss), at least 1, at most one per vector.
const nLists = Math.max(1, Math.min(embedded, Math.round(4 * Math.sqrt(embedded))));
const definition = {
  type: 'vector',
  name: INDEX_NAME,
  fields: ['embedding'],
  // Nodes without a vector (not embedded yet) are left out of the index instead of being refused.
  sparse: true,
  // Nodius keeps writing to nodius_nodes while the index is trained and filled: no exclusive lock.
  inBackground: true,
  params: {
    metric: 'cosine',
    dimension,
    nLists,
    // The service passes nProbe per query; this default serves other clients of the index.
    defaultNProbe: Math.ceil(Math.sqrt(nLists)),
  },
};
// 3.12.7+: the attributes the service filters on travel with the index, so the per-graph filter is
// applied inside the lookup without reading each candidate document.
if (atLeast(version, '3.12.7')) definition.storedValues = ['graphKey', 'embeddingModel'];

const index = nodes.ensureIndex(definition);
print(
  'vector index ' +
    index.name +
    ': ' +
    embedded +
    ' vectors, dimension ' +
    dimension +
    ', nLists ' +
    nLists +
    ', defaultNProbe ' +
    definition.params.defaultNProbe +
    (definition.storedValues ? ', storedValues ' + definition.storedValues.join(', ') : '') +
    (index.trainingState ? ', trainingState ' + index.trainingState : '') +
    (index.errorMessage ? ' (' + index.errorMessage + ')' : ''),
);
