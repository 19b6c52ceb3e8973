import { Database } from 'arangojs';
import { AqlQuery, isAqlQuery } from 'arangojs/aql';
import { containsDeep, limitsNestedLoops, referencedBindVars } from '../../../test/support/aql-bind-vars';
import { ARANGO_AUTOMATION_NAMES, spendKey } from './arango-automation.repository';
import { ArangoAutomationQueries } from './arango-automation.queries';

const HOSTILE = {
  workspace: 'ws" || true || "',
  automationId: 'aut_1" OR 1==1 //',
  runId: 'run_1") REMOVE r IN nodius_ai_automation_runs //',
  threadId: 'ai_x` RETURN 1 //',
  prompt: 'FOR a IN nodius_ai_automations REMOVE a IN nodius_ai_automations',
};

const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
const queries = new ArangoAutomationQueries({
  automations: db.collection(ARANGO_AUTOMATION_NAMES.automations),
  runs: db.collection(ARANGO_AUTOMATION_NAMES.runs),
  spend: db.collection(ARANGO_AUTOMATION_NAMES.spend),
});
const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0, totalTokens: 2, costUsd: 0.1, llmCalls: 1 };

/** Every query, and whether it is one of the scheduler's sweeps over every workspace. */
function everyQuery(): Record<string, { query: AqlQuery; allWorkspaces?: true }> {
  const { workspace, automationId, runId, threadId } = HOSTILE;
  return {
    insert: {
      query: queries.insert({
        _key: automationId,
        workspace,
        userId: 'u',
        userRole: 'editor',
        name: 'n',
        graphKey: 'g',
        prompt: HOSTILE.prompt,
        schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
        enabled: true,
        nextRunTime: 1,
        disabledReason: null,
        runningRunId: null,
        runLeaseExpiresAt: null,
        createdTime: 1,
        updatedTime: 1,
      }),
    },
    get: { query: queries.get(workspace, automationId) },
    list: { query: queries.list(workspace) },
    count: { query: queries.count(workspace) },
    update: { query: queries.update(workspace, automationId, { prompt: HOSTILE.prompt }, 5) },
    remove: { query: queries.remove(workspace, automationId) },
    dueAutomations: { query: queries.dueAutomations(5, 50, 2), allWorkspaces: true },
    expiredLeases: { query: queries.expiredLeases(5), allWorkspaces: true },
    runningCounts: { query: queries.runningCounts(workspace, 5) },
    hold: { query: queries.hold(automationId, '_rev1', { runningRunId: runId }), allWorkspaces: true },
    letGo: { query: queries.letGo(automationId, '_rev1'), allWorkspaces: true },
    markLost: { query: queries.markLost(workspace, runId, 5, 'lost') },
    renewLease: { query: queries.renewLease(workspace, automationId, runId, 5) },
    release: { query: queries.release(workspace, automationId, runId) },
    runState: { query: queries.runState(workspace, runId) },
    recordOutcome: {
      query: queries.recordOutcome(
        workspace,
        runId,
        { outcome: 'completed', finishedTime: 5, usage, spendMonth: '2027-01', error: null, threadId },
        true,
      ),
    },
    recordUsageOnly: {
      query: queries.recordOutcome(
        workspace,
        runId,
        { outcome: 'completed', finishedTime: 5, usage, spendMonth: '2027-01', error: null, threadId },
        false,
      ),
    },
    addSpend: {
      query: queries.addSpend({
        _key: spendKey(workspace, automationId, '2027-01'),
        workspace,
        automationId,
        month: '2027-01',
        costUsd: 0.5,
      }),
    },
    monthSpend: { query: queries.monthSpend(workspace, spendKey(workspace, automationId, '2027-01')) },
    interruptedRuns: { query: queries.interruptedRuns(workspace, automationId) },
    staleInterruptedRuns: { query: queries.staleInterruptedRuns(5, 100), allWorkspaces: true },
    expiredRuns: { query: queries.expiredRuns(5, 500, 100), allWorkspaces: true },
    deleteRuns: { query: queries.deleteRuns(workspace, [runId]) },
    getRun: { query: queries.getRun(workspace, runId) },
    runByThread: { query: queries.runByThread(workspace, threadId) },
    listRuns: { query: queries.listRuns(workspace, automationId, 50) },
    latestRuns: { query: queries.latestRuns(workspace, [automationId]) },
  };
}

describe(ArangoAutomationQueries.name, () => {
  describe.each(Object.entries(everyQuery()))('%s', (_name, { query, allWorkspaces }) => {
    it('refers only to bind variables it defines, holds no string literal, and reaches collections through @@', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
      for (const value of Object.values(HOSTILE)) expect(query.query).not.toContain(value);
      expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`/);
      for (const name of Object.values(ARANGO_AUTOMATION_NAMES)) expect(query.query).not.toContain(name);
      expect(limitsNestedLoops(query.query)).toBe(false);
    });

    if (!allWorkspaces) {
      it('is scoped to the workspace', () => {
        expect(containsDeep(query.bindVars, HOSTILE.workspace)).toBe(true);
      });
    }
  });

  it('modifies each collection at most once per query (ArangoDB refuses more)', () => {
    for (const { query } of Object.values(everyQuery())) {
      const modified = [
        ...query.query.matchAll(/\b(?:INSERT|UPDATE|REPLACE|REMOVE|UPSERT)\b[\s\S]*?\bIN\s+(@@\w+)/g),
      ].map((match) => match[1]);
      expect(new Set(modified).size).toBe(modified.length);
    }
  });

  it('finds expired leases through the sparse lease index: the range excludes null (a bare <= would match it)', () => {
    const text = queries.expiredLeases(5).query;
    expect(text).toMatch(/FILTER a\.runLeaseExpiresAt != null AND a\.runLeaseExpiresAt <= @value\d/);
    // The runs in progress, counted for the limits, by a range that excludes null as well.
    expect(queries.runningCounts('w', 5).query).toMatch(/FILTER a\.runLeaseExpiresAt > @value\d/);
    expect(queries.dueAutomations(5, 50, 2).query).toMatch(/FILTER a\.runLeaseExpiresAt > @value\d/);
  });

  it("cuts each workspace's due automations to what its runs in progress leave, and skips busy ones", () => {
    const { query, bindVars } = queries.dueAutomations(5, 50, 2);
    expect(query).toMatch(/SLICE\(group, 0, MAX\(\[0, @value\d - NOT_NULL\(busy\[workspace\], 0\)\]\)\)/);
    expect(query).toMatch(
      /FILTER a\.runningRunId == null OR a\.runLeaseExpiresAt == null OR a\.runLeaseExpiresAt <= @value\d/,
    );
    expect(Object.values(bindVars)).toEqual(expect.arrayContaining([5, 50, 2]));
  });

  it("adds to a month's spend by its hashed key, never reading the whole collection", () => {
    const { query, bindVars } = queries.addSpend({
      _key: spendKey('w', 'a', '2027-01'),
      workspace: 'w',
      automationId: 'a',
      month: '2027-01',
      costUsd: 0.5,
    });
    expect(query).toMatch(/UPSERT \{ _key: @(value\d) \}/);
    expect(query).toMatch(/UPDATE \{ costUsd: OLD\.costUsd \+ @value\d \}/);
    expect(bindVars[/UPSERT \{ _key: @(value\d) \}/.exec(query)![1]]).toBe(spendKey('w', 'a', '2027-01'));
    expect(spendKey('w', 'a', '2027-01')).not.toBe(spendKey('w', 'a', '2027-02'));
    expect(queries.monthSpend('w', spendKey('w', 'a', '2027-01')).query).toMatch(
      /FILTER s\._key == @value\d AND s\.workspace == @value\d/,
    );
  });
});
