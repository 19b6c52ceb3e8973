import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { NodeSearchIndex } from './node-search.index';

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
      [node('notifier', 'custom', { process: 'send slack message to channel' }), node('slack', 'custom', { process: 'noop()' })],
      [],
    );
    expect(index.search('slack', 2).map((hit) => hit.nodeKey)).toEqual(['slack', 'notifier']);
  });

  it('matches across accents, plurals and French stop words', () => {
    const index = NodeSearchIndex.build(
      [node('n1', 'custom', { data: { label: 'Filtrer les données des joueurs' } }), node('n2', 'custom', { data: { label: 'autre' } })],
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
});
