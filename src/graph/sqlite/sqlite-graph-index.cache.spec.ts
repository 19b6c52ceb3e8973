import { SharedSqliteFile } from '../../../test/support/shared-sqlite-file';
import { syntheticGraph, SYNTHETIC_WORDS } from '../../../test/support/synthetic-graph';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { graphChangeSet } from '../graph-change-set';
import { GraphDocument } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { SqliteGraphIndexCache } from './sqlite-graph-index.cache';
import { SqliteGraphStore } from './sqlite-graph.store';

const WS = 'default';
const MODEL = 'local-test';
const WORDS = SYNTHETIC_WORDS;
const graphOf = (graphKey: string, count: number): GraphDocument => ({
  ...syntheticGraph(graphKey, count),
  graph: { _key: graphKey, workspace: WS, name: graphKey, sheetsList: { '0': 'main' } },
});

/** Counts the turns of the event loop (setImmediate) that ran until stop(). */
function turnCounter(): { stop(): number } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      running = false;
      return turns;
    },
  };
}

const QUERIES = ['invoice refund', 'customer', 'ledger audit report', 'webhook retry', 'n17 step'];

/** Deterministic vectors (graph/ may not use the embeddings module): word counts over WORDS, then 8 dimensions from a hash of the text. */
const embedder = {
  embedOne: async (text: string): Promise<Float32Array> => {
    const vector = new Float32Array(WORDS.length + 8);
    for (const word of text.split(/\W+/)) {
      const index = WORDS.indexOf(word);
      if (index >= 0) vector[index] += 1;
    }
    let hash = 2166136261;
    for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    for (let index = 0; index < 8; index += 1) vector[WORDS.length + index] = ((hash >>> (index * 4)) & 15) / 30;
    return vector;
  },
  embed: async (texts: string[]): Promise<Float32Array[]> => Promise.all(texts.map((text) => embedder.embedOne(text))),
};

describe(`${SqliteGraphIndexCache.name} (rebuilds in pages, one at a time, bounded)`, () => {
  let file: SharedSqliteFile;
  let logs: LogEntry[];

  beforeAll(() => configureLogging({ level: 'debug' }));
  afterAll(() => configureLogging({ level: 'info' }));
  beforeEach(() => {
    file = SharedSqliteFile.create('index-cache-');
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => {
    resetLogSink();
    file.close();
  });

  const built = (event: 'search_index_built' | 'vector_index_built') => logs.filter((entry) => entry.event === event);

  async function importWithVectors(store: SqliteGraphStore, document: GraphDocument): Promise<void> {
    await store.importGraph(WS, document);
    const vectors = await embedder.embed(document.nodes.map((node) => node.process as string));
    await store.saveEmbeddings(
      WS,
      document.graph._key,
      document.nodes.map((node, index) => ({ nodeKey: node._key, vector: vectors[index], model: MODEL, hash: 'h' })),
    );
  }

  async function textHits(source: MutableGraphDataSource, graphKey: string): Promise<Array<Array<[string, number]>>> {
    const hits: Array<Array<[string, number]>> = [];
    for (const query of QUERIES)
      hits.push((await source.searchNodes(graphKey, query, 30)).map((hit) => [hit.node._key, hit.score]));
    return hits;
  }

  async function vectorHits(source: MutableGraphDataSource, graphKey: string): Promise<Array<Array<[string, number]>>> {
    const hits: Array<Array<[string, number]>> = [];
    for (const query of QUERIES) {
      const vector = await embedder.embedOne(query);
      hits.push(
        (await source.searchNodesByVector(graphKey, { vector, model: MODEL, minScore: 0 }, 30)).map((hit) => [
          hit.node._key,
          hit.score,
        ]),
      );
    }
    return hits;
  }

  it("builds a large graph's indexes in pages, giving the event loop turns, and answers as the indexes it replaces did", async () => {
    const store = file.openStore();
    await importWithVectors(store, graphOf('big', 4_000));
    const source = store.forWorkspace(WS);

    const turns = turnCounter();
    const text = await textHits(source, 'big');
    const vectors = await vectorHits(source, 'big');
    expect(turns.stop()).toBeGreaterThan(2);
    expect(built('search_index_built')).toEqual([
      expect.objectContaining({ graphKey: 'big', nodes: 4_000, reason: 'first_use', pages: 5 }),
    ]);
    expect(built('vector_index_built')).toEqual([
      expect.objectContaining({ graphKey: 'big', nodes: 4_000, reason: 'first_use' }),
    ]);
    expect(text[0].length).toBe(30);

    // The same ranking, scores included, as a store that builds again from the file.
    const fresh = file.openStore().forWorkspace(WS);
    expect(await textHits(fresh, 'big')).toEqual(text);
    expect(await vectorHits(fresh, 'big')).toEqual(vectors);
  });

  it('runs one build for every search of a graph that arrives while it is being indexed', async () => {
    const store = file.openStore();
    await importWithVectors(store, graphOf('big', 2_500));
    const source = store.forWorkspace(WS);
    const vector = await embedder.embedOne('invoice');
    await Promise.all([
      ...QUERIES.map((query) => source.searchNodes('big', query, 10)),
      ...QUERIES.map(() => source.searchNodesByVector('big', { vector, model: MODEL, minScore: 0 }, 10)),
    ]);
    expect(built('search_index_built')).toHaveLength(1);
    expect(built('vector_index_built')).toHaveLength(1);
  });

  it('catches up with writes made by another process while it was building', async () => {
    const store = file.openStore();
    await importWithVectors(store, graphOf('big', 3_000));
    const other = file.openStore();
    const source = store.forWorkspace(WS);

    const searching = textHits(source, 'big');
    const vectorSearching = vectorHits(source, 'big');
    // Between two pages of the build: content changes, a deletion, a creation, and new vectors.
    await new Promise((resolve) => setImmediate(resolve));
    const otherSource = other.forWorkspace(WS);
    await otherSource.updateNode('big', {
      ...graphOf('big', 3_000).nodes[5],
      process: 'invoice invoice invoice refund',
    });
    await otherSource.applyChanges(
      'big',
      graphChangeSet({
        nodeKeysToDelete: ['n1'],
        nodesToCreate: [{ ...graphOf('big', 1).nodes[0], _key: 'late', process: 'customer audit' }],
      }),
    );
    const [n5, late] = await embedder.embed(['invoice invoice invoice refund', 'customer audit']);
    await other.saveEmbeddings(WS, 'big', [
      { nodeKey: 'n5', vector: n5, model: MODEL, hash: 'h2' },
      { nodeKey: 'late', vector: late, model: MODEL, hash: 'h2' },
    ]);
    await Promise.all([searching, vectorSearching]);

    // The next searches see every write, exactly as a fresh build does.
    const fresh = file.openStore().forWorkspace(WS);
    expect(await textHits(source, 'big')).toEqual(await textHits(fresh, 'big'));
    expect(await vectorHits(source, 'big')).toEqual(await vectorHits(fresh, 'big'));
    expect((await source.searchNodes('big', 'invoice', 1))[0].node._key).toBe('n5');
  });

  it('drops the least recently searched graphs beyond the indexed-node budget, never the one being searched', async () => {
    const store = file.openStore({ indexCache: { maxIndexedNodes: 150 } });
    for (const key of ['a', 'b', 'c']) await store.importGraph(WS, graphOf(key, 100));
    const source = store.forWorkspace(WS);
    await source.searchNodes('a', 'invoice', 5);
    await source.searchNodes('b', 'invoice', 5);
    await source.searchNodes('b', 'customer', 5);
    expect(built('search_index_built').map((entry) => entry.graphKey)).toEqual(['a', 'b']);
    // a was dropped for b; b now goes for a again.
    await source.searchNodes('a', 'invoice', 5);
    expect(built('search_index_built').map((entry) => entry.graphKey)).toEqual(['a', 'b', 'a']);

    // A graph larger than the whole budget is still indexed (and kept while it is the one searched).
    await store.importGraph(WS, graphOf('huge', 400));
    await source.searchNodes('huge', 'invoice', 5);
    await source.searchNodes('huge', 'customer', 5);
    expect(built('search_index_built').map((entry) => entry.graphKey)).toEqual(['a', 'b', 'a', 'huge']);
  });

  it('drops the indexes of a graph not searched for idleTtlMs, so memory comes back after a burst', async () => {
    let now = 1_000_000;
    const store = file.openStore({ indexCache: { idleTtlMs: 60_000, clock: () => now } });
    for (const key of ['a', 'b']) await store.importGraph(WS, graphOf(key, 50));
    const source = store.forWorkspace(WS);
    await source.searchNodes('a', 'invoice', 5);
    now += 30_000;
    await source.searchNodes('b', 'invoice', 5);
    now += 40_000;
    // a (70 s idle) is dropped, b (40 s) is kept.
    await source.searchNodes('b', 'customer', 5);
    await source.searchNodes('a', 'customer', 5);
    expect(built('search_index_built').map((entry) => entry.graphKey)).toEqual(['a', 'b', 'a']);
    await store.close();
  });
});
