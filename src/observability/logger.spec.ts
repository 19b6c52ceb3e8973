import { LogEntry } from './log-entry';
import { configureLogging, Logger, resetLogSink, setLogSink } from './logger';

describe(Logger.name, () => {
  const entries: LogEntry[] = [];
  const logger = new Logger('spec');

  beforeEach(() => {
    entries.length = 0;
    configureLogging({ level: 'info', aiDebug: false });
    setLogSink((entry) => entries.push(entry));
  });
  afterEach(() => resetLogSink());
  afterAll(() => configureLogging({ level: 'info', aiDebug: false }));

  it('writes one JSON entry per call: ISO time, level name, scope, event, then the fields', () => {
    logger.info('thing_done', { count: 3, nested: { ok: true } });
    expect(entries).toEqual([
      { time: expect.any(String), level: 'info', scope: 'spec', event: 'thing_done', count: 3, nested: { ok: true } },
    ]);
    expect(new Date(entries[0].time).toISOString()).toBe(entries[0].time);
  });

  it('drops what LOG_LEVEL filters out, for loggers made before the setting too', () => {
    configureLogging({ level: 'warn' });
    logger.debug('a');
    logger.info('b');
    logger.warn('c');
    logger.error('d');
    new Logger('later').info('e');
    expect(entries.map((entry) => [entry.level, entry.event])).toEqual([
      ['warn', 'c'],
      ['error', 'd'],
    ]);
    configureLogging({ level: 'debug' });
    logger.debug('f');
    expect(entries.at(-1)).toMatchObject({ level: 'debug', event: 'f' });
  });

  it('emits debug events only with AI_DEBUG, whatever LOG_LEVEL says', () => {
    configureLogging({ level: 'error' });
    logger.debugEvent('rag_retrieve', { nodeCount: 2 });
    expect(entries).toEqual([]);
    configureLogging({ aiDebug: true });
    logger.debugEvent('rag_retrieve', { nodeCount: 2 });
    logger.info('not_this');
    expect(entries).toEqual([
      expect.objectContaining({ level: 'debug', scope: 'spec', event: 'rag_retrieve', nodeCount: 2 }),
    ]);
  });

  it('redacts secrets at the top level and in headers (of the entry, of a request, of a response), and keeps token counts', () => {
    const secrets = { apiKey: 'sk-1', authorization: 'Bearer x', password: 'p', token: 't', accessToken: 'a' };
    const redacted = Object.fromEntries(Object.keys(secrets).map((name) => [name, '[redacted]']));
    logger.warn('leak_attempt', {
      ...secrets,
      headers: { ...secrets, 'x-api-key': 'k', accept: 'json' },
      req: { headers: { cookie: 'c=1', 'user-agent': 'curl' } },
      res: { headers: { 'set-cookie': 'sid=2' } },
      promptTokens: 10,
      tokensStreamed: 4,
    });
    expect(entries[0]).toMatchObject({
      ...redacted,
      headers: { ...redacted, 'x-api-key': '[redacted]', accept: 'json' },
      req: { headers: { cookie: '[redacted]', 'user-agent': 'curl' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
      promptTokens: 10,
      tokensStreamed: 4,
    });
    expect(JSON.stringify(entries)).not.toMatch(/sk-|Bearer|c=1|sid=/);
  });

  it('still writes the line when a field holds what JSON.stringify refuses: a cycle, a big integer', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    logger.info('odd_values', { cyclic, big: BigInt(2) ** BigInt(70) });
    expect(entries).toEqual([
      expect.objectContaining({ event: 'odd_values', cyclic: expect.objectContaining({ name: 'loop' }) }),
    ]);
    expect(JSON.stringify(entries[0].cyclic)).toContain('"[Circular]"');
    expect(entries[0].big).toBeCloseTo(2 ** 70);
  });

  it('never lets a broken sink break the caller', () => {
    setLogSink(() => {
      throw new Error('sink down');
    });
    expect(() => logger.error('still_fine')).not.toThrow();
  });
});
