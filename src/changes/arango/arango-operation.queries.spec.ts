import { Database } from 'arangojs';
import { isAqlQuery } from 'arangojs/aql';
import { containsDeep, limitsNestedLoops, referencedBindVars } from '../../../test/support/aql-bind-vars';
import { emptyChanges } from '../operation';
import { ArangoOperationQueries } from './arango-operation.queries';
import { ARANGO_OPERATIONS } from './arango-operation.repository';

const HOSTILE = { key: 'op_x" || true || "', workspace: 'ws" || true || "', thread: 'ai_" || true || "' };

// Building queries needs only collection handles: no request is made, no server is needed.
const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
const queries = new ArangoOperationQueries(db.collection(ARANGO_OPERATIONS), db.collection('nodius_graphs'));
const withWorkspace = {
  operation: queries.operation(HOSTILE.key, HOSTILE.workspace),
  markReverted: queries.markReverted(HOSTILE.workspace, [HOSTILE.key], 'ai_1:undo:1'),
  byThread: queries.byThread(HOSTILE.workspace, HOSTILE.thread),
  graphRevision: queries.graphRevision(HOSTILE.workspace, 'g'),
  insert: queries.insert({
    _key: HOSTILE.key,
    operationId: 'ai_1:call_1',
    workspace: HOSTILE.workspace,
    graphKey: 'g',
    threadId: HOSTILE.thread,
    status: 'applied',
    actor: { userId: 'ada', role: 'editor', via: 'approval' },
    appliedTime: 1,
    changes: emptyChanges('0'),
    inverse: emptyChanges('0'),
    touched: [],
    outcome: {},
  }),
};
const every = { ...withWorkspace, prune: queries.prune(1_000) };

describe(ArangoOperationQueries.name, () => {
  describe.each(Object.entries(every))('%s', (_name, query) => {
    it('refers only to bind variables it defines, holds no string literal and reaches collections through bind variables', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
      expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`/);
      expect(query.query).not.toContain(ARANGO_OPERATIONS);
      expect(limitsNestedLoops(query.query)).toBe(false);
    });
  });

  it.each(Object.entries(withWorkspace))('%s names the workspace', (name, query) => {
    expect(containsDeep(query.bindVars, HOSTILE.workspace)).toBe(true);
    // An insert carries it in the document it writes.
    if (name !== 'insert') expect(query.query).toContain('workspace');
  });
});
