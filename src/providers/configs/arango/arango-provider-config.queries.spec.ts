import { Database } from 'arangojs';
import { AqlQuery, isAqlQuery } from 'arangojs/aql';
import { containsDeep, limitsNestedLoops, referencedBindVars } from '../../../../test/support/aql-bind-vars';
import { ArangoProviderConfigQueries } from './arango-provider-config.queries';
import { ARANGO_PROVIDER_CONFIGS } from './arango-provider-config.repository';

const HOSTILE = {
  workspace: 'ws" || true || "',
  configId: 'pc_1" OR 1==1 //',
  name: 'T" } IN nodius_ai_provider_configs //',
  sealed: 'v1.x") REMOVE c IN nodius_ai_provider_configs //',
};

const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
const queries = new ArangoProviderConfigQueries(db.collection(ARANGO_PROVIDER_CONFIGS));
const document = {
  _key: HOSTILE.configId,
  workspace: HOSTILE.workspace,
  name: HOSTILE.name,
  provider: 'deepseek',
  model: 'deepseek-chat',
  apiKeySecret: HOSTILE.sealed,
  active: false,
  createdTime: 1,
  updatedTime: 1,
};

function everyQuery(): Record<string, AqlQuery> {
  const { workspace, configId } = HOSTILE;
  return {
    list: queries.list(workspace),
    get: queries.get(workspace, configId),
    getActive: queries.getActive(workspace),
    count: queries.count(workspace),
    insert: queries.insert(document),
    update: queries.update(workspace, configId, { name: HOSTILE.name, baseUrl: null }, 5),
    remove: queries.remove(workspace, configId),
    activate: queries.activate(workspace, configId, 5),
    deactivate: queries.deactivate(workspace, 5),
    listSealed: queries.listSealed(),
    replaceSealed: queries.replaceSealed(workspace, configId, HOSTILE.sealed, 'v1.new'),
  };
}

describe(ArangoProviderConfigQueries.name, () => {
  describe.each(Object.entries(everyQuery()))('%s', (name, query) => {
    it('refers only to bind variables it defines, holds no string literal, and reaches the collection through @@', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
      for (const value of Object.values(HOSTILE)) expect(query.query).not.toContain(value);
      expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`/);
      expect(query.query).not.toContain(ARANGO_PROVIDER_CONFIGS);
      const collections = Object.entries(query.bindVars).filter(([key]) => key.startsWith('@'));
      expect(collections.map(([, value]) => value)).toEqual([ARANGO_PROVIDER_CONFIGS]);
      expect(limitsNestedLoops(query.query)).toBe(false);
    });

    if (name !== 'listSealed') {
      it('is scoped to the workspace', () => {
        expect(containsDeep(query.bindVars, HOSTILE.workspace)).toBe(true);
        if (name !== 'insert') expect(query.query).toMatch(/\.workspace == @value\d+/);
      });
    }
  });

  it('switches the active configuration off before switching the new one on, in one query', () => {
    const text = queries.activate('ws', 'pc_1', 5).query.replace(/\s+/g, ' ');
    expect(text).toContain('SORT c._key == target');
    expect(text).toContain('activeWorkspace: c._key == target ?');
    expect(text).toContain('OPTIONS { keepNull: false }');
  });
});
