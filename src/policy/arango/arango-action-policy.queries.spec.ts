import { Database } from 'arangojs';
import { isAqlQuery } from 'arangojs/aql';
import { containsDeep, referencedBindVars } from '../../../test/support/aql-bind-vars';
import { ArangoActionPolicyQueries } from './arango-action-policy.queries';
import { ARANGO_ACTION_POLICIES } from './arango-action-policy.repository';

const HOSTILE = { key: 'policy_x" || true || "', workspace: 'ws" || true || "' };

// Building queries needs only a collection handle: no request is made, no server is needed.
const queries = new ArangoActionPolicyQueries(
  new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' }).collection(ARANGO_ACTION_POLICIES),
);
const every = {
  policy: queries.policy(HOSTILE.key, HOSTILE.workspace),
  replace: queries.replace({
    _key: HOSTILE.key,
    workspace: HOSTILE.workspace,
    default: { create_node: 'autonomous' },
    roles: {},
    updatedTime: 1,
  }),
};

describe(ArangoActionPolicyQueries.name, () => {
  describe.each(Object.entries(every))('%s', (_name, query) => {
    it('refers only to bind variables it defines, and uses all of them', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
    });

    it('holds no string literal, reaches the collection through a bind variable, and names the workspace', () => {
      expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`/);
      expect(query.query).not.toContain(ARANGO_ACTION_POLICIES);
      expect(Object.values(query.bindVars)).toContain(ARANGO_ACTION_POLICIES);
      expect(containsDeep(query.bindVars, HOSTILE.workspace)).toBe(true);
      expect(query.query).toContain('workspace');
    });
  });
});
