import { Database } from 'arangojs';
import { ArangoAlwaysSendQueries } from './arango-always-send.queries';

describe(ArangoAlwaysSendQueries.name, () => {
  const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'nodius' });
  const queries = new ArangoAlwaysSendQueries(db.collection('nodius_ai_always_send'));
  afterAll(() => db.close());

  it('reads one graph’s list by its key, its workspace and its graph, all bound', () => {
    const query = queries.list('k1', 'ws" OR true', 'g');
    expect(query.query).not.toContain('ws"');
    expect(query.query).toMatch(
      /FOR list IN @@value0\s+FILTER list\._key == @value1 AND list\.workspace == @value2 AND list\.graphKey == @value3/,
    );
    expect(query.bindVars).toEqual({
      '@value0': 'nodius_ai_always_send',
      value1: 'k1',
      value2: 'ws" OR true',
      value3: 'g',
    });
  });

  it('replaces the whole document in one UPSERT on its key, workspace and graph', () => {
    const document = { _key: 'k1', workspace: 'w', graphKey: 'g', nodeKeys: ['a'], nodeTypes: [], updatedTime: 5 };
    const query = queries.replace(document);
    expect(query.query).toMatch(/UPSERT \{ _key: @value0, workspace: @value1, graphKey: @value2 \}/);
    expect(query.query).toMatch(/INSERT @value3\s+REPLACE @value3\s+IN @@value4/);
    expect(query.bindVars.value3).toEqual(document);
  });
});
