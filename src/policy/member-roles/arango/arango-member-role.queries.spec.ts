import { Database } from 'arangojs';
import { isAqlQuery } from 'arangojs/aql';
import { containsDeep, referencedBindVars } from '../../../../test/support/aql-bind-vars';
import { ARANGO_MEMBER_ROLES } from './arango-member-role.repository';
import { ArangoMemberRoleQueries } from './arango-member-role.queries';

const HOSTILE = { key: 'member_x" || true || "', workspace: 'ws" || true || "', user: 'u" || true || "' };

// Building queries needs only a collection handle: no request is made, no server is needed.
const queries = new ArangoMemberRoleQueries(
  new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' }).collection(ARANGO_MEMBER_ROLES),
);

describe(ArangoMemberRoleQueries.name, () => {
  it.each(
    Object.entries({
      record: queries.record(HOSTILE.key, HOSTILE.workspace, HOSTILE.user, 'editor', 1),
      get: queries.get(HOSTILE.key, HOSTILE.workspace),
    }),
  )('%s: bind variables only, the collection as one, the workspace named', (_name, query) => {
    expect(isAqlQuery(query)).toBe(true);
    expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
    expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`/);
    expect(query.query).not.toContain(ARANGO_MEMBER_ROLES);
    expect(containsDeep(query.bindVars, HOSTILE.workspace)).toBe(true);
    expect(query.query).toContain('workspace');
  });
});
