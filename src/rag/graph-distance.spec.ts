import { nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { distancesFrom } from './graph-distance';

describe(distancesFrom.name, () => {
  it('counts hops in both directions', () => {
    const distances = distancesFrom('fetch-api', nbaWorkflowDemo.edges);
    expect(Object.fromEntries(distances)).toEqual({
      'fetch-api': 0,
      root: 1,
      'filter-active': 1,
      'error-handler': 1,
      'entry-form': 2,
      'display-html': 2,
      return: 3,
    });
  });

  it('follows edge direction on request', () => {
    expect(Object.fromEntries(distancesFrom('fetch-api', nbaWorkflowDemo.edges, 'out'))).toEqual({
      'fetch-api': 0,
      'filter-active': 1,
      'error-handler': 1,
      'display-html': 2,
      return: 3,
    });
    expect(Object.fromEntries(distancesFrom('fetch-api', nbaWorkflowDemo.edges, 'in'))).toEqual({
      'fetch-api': 0,
      root: 1,
      'entry-form': 2,
    });
  });

  it('knows only the start when there are no edges', () => {
    expect([...distancesFrom('alone', [])]).toEqual([['alone', 0]]);
  });
});
