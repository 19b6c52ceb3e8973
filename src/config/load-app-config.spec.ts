import * as path from 'node:path';
import { ConfigValidationError } from './config-validation.error';
import { loadAppConfig } from './load-app-config';

describe(loadAppConfig.name, () => {
  it('applies the documented defaults', () => {
    const config = loadAppConfig({});
    expect(config.server.port).toBe(3000);
    expect(config.store).toMatchObject({ kind: 'sqlite', seedDemo: true });
    expect(config.agent.maxToolRounds).toBe(5);
    expect(config.agent.hitlApply).toBe('server');
    expect(config.rag).toEqual({ cacheTtlMs: 120000, maxNodes: 20, maxDepth: 2, indexWaitMs: 750 });
    expect(config.auth.mode).toBe('none');
    expect(config.locale).toBe('en');
  });

  it('converts strings to numbers and booleans', () => {
    const config = loadAppConfig({ PORT: '8080', SEED_DEMO: 'false', AI_DEBUG: '1', RAG_CACHE_TTL_MS: '0' });
    expect(config.server.port).toBe(8080);
    expect(config.store.seedDemo).toBe(false);
    expect(config.log.aiDebug).toBe(true);
    expect(config.rag.cacheTtlMs).toBe(0);
  });

  it('names every bad variable', () => {
    expect.assertions(3);
    try {
      loadAppConfig({ PORT: 'abc', STORE: 'mysql', AI_LOCALE: 'de' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      const message = (error as Error).message;
      expect(message).toMatch(/PORT/);
      expect(message).toMatch(/STORE[\s\S]*AI_LOCALE|AI_LOCALE[\s\S]*STORE/);
    }
  });

  it('bounds the agent loop: tool calls per reply (10) and rounds without progress (3), validated', () => {
    expect(loadAppConfig({}).agent).toMatchObject({ maxToolCallsPerReply: 10, noProgressRounds: 3 });
    expect(loadAppConfig({ AI_MAX_TOOL_CALLS_PER_REPLY: '4', AI_NO_PROGRESS_ROUNDS: '2' }).agent).toMatchObject({
      maxToolCallsPerReply: 4,
      noProgressRounds: 2,
    });
    expect(loadAppConfig({}).agent.setupFirstMaxMs).toBe(2000);
    expect(loadAppConfig({ AI_SETUP_FIRST_MAX_MS: '0' }).agent.setupFirstMaxMs).toBe(0);
    expect(() => loadAppConfig({ AI_SETUP_FIRST_MAX_MS: '-5' })).toThrow(/AI_SETUP_FIRST_MAX_MS/);
    expect(loadAppConfig({}).agent.streamTurnBudgetMs).toBe(5);
    expect(loadAppConfig({ AI_STREAM_TURN_BUDGET_MS: '0' }).agent.streamTurnBudgetMs).toBe(0);
    expect(() => loadAppConfig({ AI_STREAM_TURN_BUDGET_MS: '2.5' })).toThrow(/AI_STREAM_TURN_BUDGET_MS/);
    expect(loadAppConfig({}).agent.setupFirstMinWaiting).toBe(128);
    expect(loadAppConfig({ AI_SETUP_FIRST_MIN_WAITING: '8' }).agent.setupFirstMinWaiting).toBe(8);
    expect(() => loadAppConfig({ AI_SETUP_FIRST_MIN_WAITING: 'some' })).toThrow(/AI_SETUP_FIRST_MIN_WAITING/);
    expect(() => loadAppConfig({ AI_MAX_TOOL_CALLS_PER_REPLY: '0' })).toThrow(/AI_MAX_TOOL_CALLS_PER_REPLY/);
    expect(() => loadAppConfig({ AI_MAX_TOOL_CALLS_PER_REPLY: 'many' })).toThrow(/AI_MAX_TOOL_CALLS_PER_REPLY/);
    expect(() => loadAppConfig({ AI_NO_PROGRESS_ROUNDS: '0' })).toThrow(/AI_NO_PROGRESS_ROUNDS/);
  });

  it("reads how long a question waits for a large graph's index build (0 to 60,000 ms)", () => {
    expect(loadAppConfig({ RAG_INDEX_WAIT_MS: '0' }).rag.indexWaitMs).toBe(0);
    expect(loadAppConfig({ RAG_INDEX_WAIT_MS: '60000' }).rag.indexWaitMs).toBe(60000);
    expect(() => loadAppConfig({ RAG_INDEX_WAIT_MS: '60001' })).toThrow(/RAG_INDEX_WAIT_MS/);
    expect(() => loadAppConfig({ RAG_INDEX_WAIT_MS: '-1' })).toThrow(/RAG_INDEX_WAIT_MS/);
  });

  it('caps the heap growth at 50 % by default; 0 leaves V8 its own factor; a bad value is refused', () => {
    expect(loadAppConfig({}).server.heapGrowingPercent).toBe(35);
    expect(loadAppConfig({ HEAP_GROWING_PERCENT: '0' }).server.heapGrowingPercent).toBe(0);
    expect(() => loadAppConfig({ HEAP_GROWING_PERCENT: '301' })).toThrow(/HEAP_GROWING_PERCENT/);
    expect(() => loadAppConfig({ HEAP_GROWING_PERCENT: '-1' })).toThrow(/HEAP_GROWING_PERCENT/);
  });

  it('refuses AUTH_MODE=none in production and requires a key for jwt', () => {
    expect(() => loadAppConfig({ NODE_ENV: 'production', AUTH_MODE: 'none' })).toThrow(/AUTH_MODE/);
    expect(() => loadAppConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: 'a-long-enough-secret' }).auth.mode).toBe('jwt');
  });

  it('never shows the value of a secret variable it refuses', () => {
    const attempts: Record<string, string>[] = [
      { JWT_SECRET: 'MyRealSecret-15' },
      { SYNC_TOKEN: 'sync-token-1' },
      { REDIS_URL: 'http://user:pa55word@redis:6379' },
    ];
    for (const env of attempts) {
      const [name, value] = Object.entries(env)[0];
      let message = '';
      try {
        loadAppConfig(env);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(name);
      expect(message).not.toContain(value);
      expect(message).toContain('value not shown');
    }
    // Other variables still show what they got: it helps, and it is not a secret.
    expect(() => loadAppConfig({ LOG_LEVEL: 'loud' })).toThrow(/got "loud"/);
  });

  it('requires ARANGO_URL for the arango store and defaults HITL to the client there', () => {
    expect(() => loadAppConfig({ STORE: 'arango' })).toThrow(/ARANGO_URL/);
    const config = loadAppConfig({ STORE: 'arango', ARANGO_URL: 'http://arangodb:8529' });
    expect(config.store.kind).toBe('arango');
    expect(config.agent.hitlApply).toBe('client');
  });

  it('reads the memory settings with their defaults and refuses a bad retention schedule', () => {
    expect(loadAppConfig({}).memory).toEqual({
      enabled: true,
      level1EveryChars: 8000,
      level2EveryChars: 4000,
      recallMinScore: undefined,
      recallLimits: { 0: 3, 1: 5, 2: 3 },
      recallMaxTokens: 1500,
      summaryMaxTokens: 2000,
      level1RetentionDays: 30,
      level2RetentionDays: 90,
      trimSchedule: '0 3 * * *',
    });
    const custom = loadAppConfig({
      MEMORY_ENABLED: 'false',
      MEMORY_RECALL_MIN_SCORE: '0.25',
      MEMORY_RECALL_L1_LIMIT: '0',
      MEMORY_TRIM_SCHEDULE: '*/5 * * * *',
    });
    expect(custom.memory).toMatchObject({
      enabled: false,
      recallMinScore: 0.25,
      recallLimits: { 0: 3, 1: 0, 2: 3 },
      trimSchedule: '*/5 * * * *',
    });
    expect(() => loadAppConfig({ MEMORY_TRIM_SCHEDULE: 'every day' })).toThrow(
      /MEMORY_TRIM_SCHEDULE: not a valid cron pattern/,
    );
    expect(() => loadAppConfig({ MEMORY_RECALL_MIN_SCORE: '1.5' })).toThrow(/MEMORY_RECALL_MIN_SCORE/);
    expect(() => loadAppConfig({ MEMORY_L1_EVERY_CHARS: '10' })).toThrow(/MEMORY_L1_EVERY_CHARS/);
  });

  it('serves the playground outside production, and in production only when PLAYGROUND_ENABLED says so', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'a-long-enough-secret' };
    expect(loadAppConfig({}).playground).toEqual({ enabled: true, assetsDir: path.resolve('dist/playground') });
    expect(loadAppConfig({ PLAYGROUND_ENABLED: 'false' }).playground.enabled).toBe(false);
    expect(loadAppConfig(production).playground.enabled).toBe(false);
    expect(
      loadAppConfig({ ...production, PLAYGROUND_ENABLED: 'true', PLAYGROUND_DIR: '/srv/page' }).playground,
    ).toEqual({ enabled: true, assetsDir: '/srv/page' });
    expect(() => loadAppConfig({ PLAYGROUND_ENABLED: 'perhaps' })).toThrow(/PLAYGROUND_ENABLED/);
  });

  it('reads AI_SECRETS_KEY as 32 base64 bytes and refuses anything else without showing it', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const previous = Buffer.alloc(32, 9).toString('base64');
    expect(loadAppConfig({}).secrets).toEqual({ key: undefined, previousKey: undefined });
    const config = loadAppConfig({ AI_SECRETS_KEY: key, AI_SECRETS_KEY_PREVIOUS: previous });
    expect(config.secrets.key?.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.secrets.previousKey?.equals(Buffer.alloc(32, 9))).toBe(true);
    for (const bad of [
      Buffer.alloc(16, 7).toString('base64'),
      `${key.slice(0, -2)}!=`,
      'not base64 at all',
      key.slice(0, -1),
      '',
    ]) {
      let message = '';
      try {
        loadAppConfig({ AI_SECRETS_KEY: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/AI_SECRETS_KEY: must be 32 random bytes encoded in base64/);
      if (bad.length > 0) expect(message).not.toContain(bad);
    }
    expect(() => loadAppConfig({ AI_SECRETS_KEY_PREVIOUS: previous })).toThrow(
      /AI_SECRETS_KEY_PREVIOUS: only read beside AI_SECRETS_KEY/,
    );
  });

  it('schedules automations on every instance by default, every second', () => {
    expect(loadAppConfig({}).automations).toEqual({
      schedulerEnabled: true,
      pollMs: 1000,
      maxRuns: 8,
      maxRunsPerWorkspace: 2,
      retentionDays: 30,
      interruptTtlDays: 7,
    });
    expect(loadAppConfig({ AUTOMATIONS_ENABLED: 'false', AUTOMATION_POLL_MS: '250' }).automations).toMatchObject({
      schedulerEnabled: false,
      pollMs: 250,
    });
    expect(
      loadAppConfig({
        AUTOMATION_MAX_RUNS: '20',
        AUTOMATION_MAX_RUNS_PER_WORKSPACE: '5',
        AUTOMATION_RETENTION_DAYS: '90',
      }).automations,
    ).toMatchObject({ maxRuns: 20, maxRunsPerWorkspace: 5, retentionDays: 90 });
    expect(() => loadAppConfig({ AUTOMATION_MAX_RUNS: '0' })).toThrow(/AUTOMATION_MAX_RUNS/);
    expect(() => loadAppConfig({ AUTOMATION_INTERRUPT_TTL_DAYS: '0' })).toThrow(/AUTOMATION_INTERRUPT_TTL_DAYS/);
    expect(() => loadAppConfig({ AUTOMATION_POLL_MS: '10' })).toThrow(/AUTOMATION_POLL_MS/);
  });
});
