import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { NODE_SEARCH_INDEX_FORMAT, NodeSearchIndex } from './node-search.index';

const node = (key: string, type: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: 'g',
  type,
  sheet: '0',
  posX: 0,
  posY: 0,
  ...extra,
});

describe(NodeSearchIndex.name, () => {
  const demo = NodeSearchIndex.build(nbaWorkflowDemo.nodes, nbaWorkflowDemo.nodeConfigs);
  const keys = (query: string, max = 10) => demo.search(query, max).map((hit) => hit.nodeKey);

  it('puts the node whose key the query names first, in any spelling', () => {
    for (const query of ['fetch-api', 'fetchApi', 'fetch api', 'FETCH_API']) expect(keys(query)[0]).toBe('fetch-api');
    expect(keys('error handler')[0]).toBe('error-handler');
  });

  it('puts nodes of the type the query names first, by type key or display name', () => {
    expect(keys('filter')[0]).toBe('filter-active');
    expect(keys('API Call')[0]).toBe('fetch-api');
    expect(keys('log node')[0]).toBe('error-handler');
  });

  it('ranks an exact key match above an exact type match', () => {
    const index = NodeSearchIndex.build([node('a', 'mailer'), node('mailer', 'other'), node('c', 'mailer')], []);
    expect(index.search('mailer', 3)[0].nodeKey).toBe('mailer');
  });

  it('finds nodes by their process code, data strings and type description', () => {
    expect(keys('players sorted by points')).toContain('sort-stats');
    expect(keys('team averages')[0]).toBe('disconnected-note');
    expect(keys('HTTP API JSON response')).toContain('fetch-api');
  });

  it('weighs a key or type occurrence more than one in code', () => {
    const index = NodeSearchIndex.build(
      [
        node('notifier', 'custom', { process: 'send slack message to channel' }),
        node('slack', 'custom', { process: 'noop()' }),
      ],
      [],
    );
    expect(index.search('slack', 2).map((hit) => hit.nodeKey)).toEqual(['slack', 'notifier']);
  });

  it('matches across accents, plurals and French stop words', () => {
    const index = NodeSearchIndex.build(
      [
        node('n1', 'custom', { data: { label: 'Filtrer les données des joueurs' } }),
        node('n2', 'custom', { data: { label: 'autre' } }),
      ],
      [],
    );
    expect(index.search('donnée joueur', 5).map((hit) => hit.nodeKey)).toEqual(['n1']);
  });

  it('scores every hit above zero, best first, within the limit', () => {
    const hits = demo.search('players', 3);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
  });

  it('returns nothing when no query term occurs, or the query is only stop words', () => {
    expect(demo.search('kubernetes', 5)).toEqual([]);
    expect(demo.search('what is the', 5)).toEqual([]);
    expect(demo.search('', 5)).toEqual([]);
  });

  it('uses the configs it is given for type names', () => {
    const configs: NodeTypeConfig[] = [{ _key: 'x-type', workspace: 'w', displayName: 'Invoice Generator' }];
    const index = NodeSearchIndex.build([node('n', 'x-type'), node('m', 'y-type')], configs);
    expect(index.search('invoice generator', 5).map((hit) => hit.nodeKey)).toEqual(['n']);
    expect(index.size).toBe(2);
  });

  it('answers as a fresh build after nodes are replaced in place, removed and appended, exact-match tiers included', () => {
    const configs = nbaWorkflowDemo.nodeConfigs;
    const configOf = (type: string) => configs.find((config) => config._key === type);
    const index = NodeSearchIndex.build(nbaWorkflowDemo.nodes, configs);
    const current = new Map(nbaWorkflowDemo.nodes.map((entry) => [entry._key, entry]));

    const fetchApi = current.get('fetch-api') as GraphNode;
    const renamedType: GraphNode = { ...fetchApi, type: 'filter', process: 'okapi sightings per team' };
    index.replace(renamedType, configOf('filter'));
    current.set('fetch-api', renamedType);
    expect(index.remove('error-handler')).toBe(true);
    expect(index.remove('error-handler')).toBe(false);
    current.delete('error-handler');
    const added = node('error-handler', 'log', { process: 'console.error(okapi)' });
    index.append(added, configOf('log'));
    current.set('error-handler', added);
    expect(() => index.append(added, undefined)).toThrow(/already indexed/);
    expect(() => index.replace(node('absent', 'x'), undefined)).toThrow(/not indexed/);

    const order = [
      ...nbaWorkflowDemo.nodes.map((entry) => entry._key).filter((key) => key !== 'error-handler'),
      'error-handler',
    ];
    const fresh = NodeSearchIndex.build(
      order.map((key) => current.get(key) as GraphNode),
      configs,
    );
    expect(index.size).toBe(fresh.size);
    expect(index.removedCount).toBe(1);
    for (const query of [
      'fetch-api',
      'filter',
      'okapi',
      'error handler',
      'log node',
      'API Call',
      'players sorted by points',
    ]) {
      expect(index.search(query, 20)).toEqual(fresh.search(query, 20));
    }
    expect(
      index
        .search('okapi', 20)
        .map((hit) => hit.nodeKey)
        .sort(),
    ).toEqual(['error-handler', 'fetch-api']);
  });

  it('ranks one sheet only when asked, with the whole graph as corpus, and follows a node moved to another sheet', () => {
    const index = NodeSearchIndex.build(
      [
        node('a', 'mailer', { sheet: '0' }),
        node('b', 'mailer', { sheet: '1' }),
        node('c', 'custom', { sheet: '1', process: 'mailer fallback' }),
      ],
      [],
    );
    expect(index.search('mailer', 5, '1').map((hit) => hit.nodeKey)).toEqual(['b', 'c']);
    expect(index.search('mailer', 5, '1')[0].score).toBe(
      index.search('mailer', 5).find((hit) => hit.nodeKey === 'b')?.score,
    );
    expect(index.search('mailer', 5, 'absent')).toEqual([]);
    index.replace(node('a', 'mailer', { sheet: '1' }), undefined);
    expect(index.search('mailer', 5, '0')).toEqual([]);
    expect(
      index
        .search('mailer', 5, '1')
        .map((hit) => hit.nodeKey)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
  });

  it('packs into flat arrays that unpack to an index answering the same, tiers, sheets and later edits included', () => {
    const configs = nbaWorkflowDemo.nodeConfigs;
    const configOf = (type: string) => configs.find((config) => config._key === type);
    const original = NodeSearchIndex.build(nbaWorkflowDemo.nodes, configs);
    original.remove('error-handler');
    original.append(node('late', 'log', { sheet: '1', process: 'okapi fallback' }), configOf('log'));
    const queries = ['fetch-api', 'filter', 'okapi', 'log node', 'API Call', 'players sorted by points', 'late'];
    const packed = original.pack();
    expect(packed.format).toBe(NODE_SEARCH_INDEX_FORMAT);
    // Through the structured clone a worker thread's message uses.
    const unpacked = NodeSearchIndex.fromPacked(structuredClone(packed));
    expect(unpacked.size).toBe(original.size);
    expect(unpacked.removedCount).toBe(1);
    expect(unpacked.has('late') && !unpacked.has('error-handler')).toBe(true);
    for (const query of queries) expect(unpacked.search(query, 20)).toEqual(original.search(query, 20));
    expect(unpacked.search('okapi', 20, '1')).toEqual(original.search('okapi', 20, '1'));

    for (const index of [original, unpacked]) {
      index.replace({ ...(nbaWorkflowDemo.nodes[1] as GraphNode), type: 'filter' }, configOf('filter'));
      index.remove('late');
      index.append(node('error-handler', 'log', { process: 'okapi again' }), configOf('log'));
    }
    for (const query of queries) expect(unpacked.search(query, 20)).toEqual(original.search(query, 20));
  });

  it('refuses a packed index of another format', () => {
    const packed = NodeSearchIndex.build(nbaWorkflowDemo.nodes, []).pack();
    expect(() => NodeSearchIndex.fromPacked({ ...packed, format: 'other' })).toThrow(/format other/);
  });
});
