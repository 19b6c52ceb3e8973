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
    expect(logged).toEqual([expect.objectContaining({ event: 'generation_interrupted', sessionId: 's/1', threadId: 'ai_1', tokensStreamed: 4 })]);
  });

  it("stops every run of a disconnected owner and logs client_disconnect_abort for each", () => {
    const registry = new ActiveRunRegistry(config);
    const runs = [registry.begin('s', 1, progress('ai_1', 2))!, registry.begin('s', 2, progress(null, 0))!];
    const other = registry.begin('t', 1, progress())!;
    expect(registry.stopOwner('s', 'client_disconnect')).toBe(2);
    expect(runs.every((run) => run.signal.aborted)).toBe(true);
    expect(other.signal.aborted).toBe(false);
    expect(logged.map((entry) => entry.event)).toEqual(['client_disconnect_abort', 'client_disconnect_abort']);
    expect(logged[0]).toMatchObject({ level: 'warn', sessionId: 's/1', threadId: 'ai_1', tokensStreamed: 2 });
    expect(registry.stopOwner('nobody', 'client_disconnect')).toBe(0);
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
