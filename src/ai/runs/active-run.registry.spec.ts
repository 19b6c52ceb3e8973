import { loadAppConfig } from '../../config/load-app-config';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { ActiveRunRegistry } from './active-run.registry';

const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', SHUTDOWN_TIMEOUT_MS: '200' });
const progress = (threadId: string | null = null, tokensStreamed = 0) => ({ threadId, tokensStreamed });

describe(ActiveRunRegistry.name, () => {
  const logged: LogEntry[] = [];
  beforeAll(() => setLogSink((entry) => logged.push(entry)));
  afterAll(() => resetLogSink());
  beforeEach(() => (logged.length = 0));

  it('refuses a second run with the same owner and request id while the first runs, and accepts it once ended', () => {
    const registry = new ActiveRunRegistry(config);
    const first = registry.begin('socket-a', 1, progress());
    expect(first).not.toBeNull();
    expect(registry.begin('socket-a', 1, progress())).toBeNull();
    expect(registry.begin('socket-b', 1, progress())).not.toBeNull();
    expect(registry.size).toBe(2);
    first!.end();
    first!.end();
    expect(registry.isRunning('socket-a', 1)).toBe(false);
    expect(registry.size).toBe(1);
    expect(registry.begin('socket-a', 1, progress())).not.toBeNull();
  });

  it('stops one run by owner and id: its signal aborts with the reason, the others keep running', () => {
    const registry = new ActiveRunRegistry(config);
    const one = registry.begin('s', 1, progress('ai_1', 4))!;
    const two = registry.begin('s', 2, progress())!;
    expect(registry.stop('s', 1, 'interrupt')).toBe(true);
    expect(registry.stop('s', 3, 'interrupt')).toBe(false);
    expect(registry.stop('other', 2, 'interrupt')).toBe(false);
    expect(one.signal.aborted).toBe(true);
    expect(one.signal.reason).toBe('interrupt');
    expect(one.stopReason).toBe('interrupt');
    expect(two.signal.aborted).toBe(false);
    expect(logged).toEqual([
      expect.objectContaining({
        event: 'generation_interrupted',
        sessionId: 's/1',
        threadId: 'ai_1',
        tokensStreamed: 4,
      }),
    ]);
  });

  it('stops every run of a disconnected owner and logs client_disconnect_abort for each (AI_DISCONNECT_POLICY=abort)', () => {
    const registry = new ActiveRunRegistry(config);
    const runs = [registry.begin('s', 1, progress('ai_1', 2))!, registry.begin('s', 2, progress(null, 0))!];
    const other = registry.begin('t', 1, progress())!;
    expect(registry.leave('s')).toBe(2);
    expect(runs.every((run) => run.signal.aborted && run.stopReason === 'client_disconnect')).toBe(true);
    expect(other.signal.aborted).toBe(false);
    expect(logged.map((entry) => entry.event)).toEqual(['client_disconnect_abort', 'client_disconnect_abort']);
    expect(logged[0]).toMatchObject({ level: 'warn', sessionId: 's/1', threadId: 'ai_1', tokensStreamed: 2 });
    expect(registry.leave('nobody')).toBe(0);
  });

  it('keeps a run whose socket left while another socket (a rejoin, on any instance) still watches it', () => {
    const registry = new ActiveRunRegistry(config);
    const run = registry.begin('s', 1, progress())!;
    expect(registry.watch(run.runKey, 'rejoined-socket')).toBe(true);
    expect(registry.watch('run_unknown', 'rejoined-socket')).toBe(false);
    registry.leave('s');
    expect(run.signal.aborted).toBe(false);
    registry.unwatchRun(run.runKey, 'rejoined-socket');
    expect(run.stopReason).toBe('client_disconnect');
  });

  it('lets a watcher of another instance lapse unless it is renewed, then applies the policy as if it had disconnected', () => {
    jest.useFakeTimers();
    try {
      const registry = new ActiveRunRegistry(config);
      const run = registry.begin('s', 1, progress())!;
      expect(registry.watch(run.runKey, 'socket-elsewhere', 1_000)).toBe(true);
      registry.leave('s');
      jest.advanceTimersByTime(900);
      registry.watch(run.runKey, 'socket-elsewhere', 1_000); // renewed
      jest.advanceTimersByTime(900);
      expect(run.signal.aborted).toBe(false);
      jest.advanceTimersByTime(100); // its instance died: no renewal came
      expect(run.stopReason).toBe('client_disconnect');
      expect(logged.map((entry) => entry.event)).toEqual(['run_watcher_expired', 'client_disconnect_abort']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('stops a run by its key (a stop from another instance), once', () => {
    const registry = new ActiveRunRegistry(config);
    const run = registry.begin('s', 1, progress())!;
    expect(run.runKey).toMatch(/^run_[0-9a-z]{9}[0-9a-f]{16}$/);
    expect(registry.stopRun(run.runKey, 'interrupt')).toBe(true);
    expect(run.signal.reason).toBe('interrupt');
    run.end();
    expect(registry.stopRun(run.runKey, 'interrupt')).toBe(false);
  });

  describe('AI_DISCONNECT_POLICY=continue', () => {
    const continuing = loadAppConfig({
      NODE_ENV: 'test',
      AUTH_MODE: 'none',
      AI_DISCONNECT_POLICY: 'continue',
      AI_REJOIN_GRACE_MS: '1000',
    });
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('lets a run whose last watcher left go on for AI_REJOIN_GRACE_MS, then stops it', () => {
      const registry = new ActiveRunRegistry(continuing);
      const run = registry.begin('s', 1, progress('ai_1'))!;
      registry.leave('s');
      jest.advanceTimersByTime(999);
      expect(run.signal.aborted).toBe(false);
      expect(logged.map((entry) => entry.event)).toEqual(['generation_awaiting_rejoin']);
      jest.advanceTimersByTime(1);
      expect(run.stopReason).toBe('client_disconnect');
    });

    it('keeps it running for good once a socket rejoined it within the grace period', () => {
      const registry = new ActiveRunRegistry(continuing);
      const run = registry.begin('s', 1, progress())!;
      registry.leave('s');
      jest.advanceTimersByTime(500);
      registry.watch(run.runKey, 'new-socket');
      jest.advanceTimersByTime(5_000);
      expect(run.signal.aborted).toBe(false);
      run.end();
      expect(registry.size).toBe(0);
    });
  });

  it('stops a run once: the first reason wins, a stop after the end does nothing', () => {
    const registry = new ActiveRunRegistry(config);
    const run = registry.begin('s', 1, progress())!;
    run.stop('client_disconnect');
    run.stop('shutdown');
    expect(run.stopReason).toBe('client_disconnect');
    const ended = registry.begin('s', 2, progress())!;
    ended.end();
    ended.stop('interrupt');
    expect(ended.signal.aborted).toBe(false);
    expect(logged).toHaveLength(1);
  });

  it('at shutdown stops every run and waits until they settled', async () => {
    const registry = new ActiveRunRegistry(config);
    const run = registry.begin('s', 1, progress())!;
    const http = registry.begin('http', 'uuid', progress())!;
    // A run settles a little after its abort (the partial answer is committed first).
    for (const each of [run, http]) each.signal.addEventListener('abort', () => setTimeout(() => each.end(), 20));
    await registry.onModuleDestroy();
    expect(run.signal.reason).toBe('shutdown');
    expect(http.signal.reason).toBe('shutdown');
    expect(registry.size).toBe(0);
    expect(logged.at(-1)).toMatchObject({ event: 'runs_stopped_for_shutdown', runs: 2, settled: true });
  });

  it('gives up waiting after SHUTDOWN_TIMEOUT_MS', async () => {
    const registry = new ActiveRunRegistry(config);
    registry.begin('s', 1, progress());
    const started = Date.now();
    await registry.onModuleDestroy();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(logged.at(-1)).toMatchObject({ level: 'warn', event: 'runs_stopped_for_shutdown', settled: false });
  });
});
