import { Worker } from 'node:worker_threads';
import { WorkerThreadExchange, WorkerThreadHost, WorkerThreadHostOptions } from './worker-thread.host';

/**
 * The thread of these tests (plain CommonJS, run with `eval`): `echo` answers with the text and the
 * thread's id, `fail` answers with an error, `hold` never answers, `crash` ends the thread with
 * exit code 3, `throw` throws out of the thread, `log` sends a line without an id before its answer, `count` answers
 * in `n` replies, each after the host's `next`.
 */
const THREAD_SOURCE = `
const { parentPort, threadId } = require('node:worker_threads');
const counting = new Map();
parentPort.on('message', (message) => {
  const { id, kind } = message;
  if (kind === 'echo') parentPort.postMessage({ id, text: message.text, threadId });
  else if (kind === 'fail') parentPort.postMessage({ id, error: 'asked to fail' });
  else if (kind === 'crash') process.exit(3);
  else if (kind === 'throw') throw new Error('thrown in the thread');
  else if (kind === 'log') {
    parentPort.postMessage({ log: message.text });
    parentPort.postMessage({ id, text: 'logged', threadId });
  }
  else if (kind === 'count') counting.set(id, message.n);
  if (kind === 'count' || kind === 'next') {
    const left = counting.get(id) - 1;
    counting.set(id, left);
    parentPort.postMessage({ id, left });
  }
});
`;

interface Echo {
  id: number;
  text: string;
  threadId: number;
}

const reasonOf = (settled: PromiseSettledResult<unknown>) =>
  settled.status === 'rejected' ? (settled.reason as Error).message : 'answered';

const createThread = () => new Worker(THREAD_SOURCE, { eval: true });

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe(WorkerThreadHost.name, () => {
  const hosts: WorkerThreadHost[] = [];
  const hostOf = (options: Partial<WorkerThreadHostOptions> = {}) => {
    const host = new WorkerThreadHost({ name: 'test worker', idleMs: 60_000, create: createThread, ...options });
    hosts.push(host);
    return host;
  };
  const echo = (host: WorkerThreadHost, text: string) => host.request<Echo>((id) => ({ id, kind: 'echo', text }));
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.stop()));
  });

  it('starts its thread on the first request and gives each request the reply carrying its id', async () => {
    let started = 0;
    const host = hostOf({ create: () => (started++, createThread()) });
    expect(host.running).toBe(false);
    const replies = await Promise.all(['a', 'b', 'c'].map((text) => echo(host, text)));
    expect(replies.map((reply) => reply.text)).toEqual(['a', 'b', 'c']);
    expect(new Set(replies.map((reply) => reply.threadId)).size).toBe(1);
    expect(started).toBe(1);
    expect(host.running).toBe(true);
    expect(host.pending).toBe(0);
  });

  it("fails a request with its reply's error, and goes on with the same thread", async () => {
    const host = hostOf();
    const first = await echo(host, 'before');
    await expect(host.request((id) => ({ id, kind: 'fail' }))).rejects.toThrow('asked to fail');
    expect((await echo(host, 'after')).threadId).toBe(first.threadId);
  });

  it('stops its thread after its idle time without a request, and starts a new one on the next', async () => {
    const host = hostOf({ idleMs: 50 });
    const first = await echo(host, 'one');
    await until(() => !host.running);
    expect(host.running).toBe(false);
    const second = await echo(host, 'two');
    expect(second.text).toBe('two');
    expect(second.threadId).not.toBe(first.threadId);
  });

  it('does not stop for idleness while it is told not to, and does once the last request settles after', async () => {
    let mayStop = false;
    const asked: boolean[] = [];
    const host = hostOf({ idleMs: 20, mayStopIdle: () => (asked.push(mayStop), mayStop) });
    const first = await echo(host, 'kept');
    expect(asked).toEqual([false]);
    // Long enough for several idle times: the thread is the same one.
    expect((await new Promise<Echo>((resolve) => setTimeout(() => resolve(echo(host, 'still')), 200))).threadId).toBe(
      first.threadId,
    );
    mayStop = true;
    await echo(host, 'last');
    await until(() => !host.running);
    expect(host.running).toBe(false);
  });

  it('fails every request waiting when the thread exits, then starts a new thread for the next', async () => {
    const ended: Error[] = [];
    const host = hostOf({ onEnded: (error) => ended.push(error) });
    const first = await echo(host, 'first');
    const held = [host.request((id) => ({ id, kind: 'hold' })), host.request((id) => ({ id, kind: 'hold' }))];
    const crash = host.request((id) => ({ id, kind: 'crash' }));
    const failures = await Promise.allSettled([...held, crash]);
    expect(failures.map(reasonOf)).toEqual(Array(3).fill('test worker exited with code 3'));
    expect(ended.map((error) => error.message)).toEqual(['test worker exited with code 3']);
    expect(host.running).toBe(false);
    expect(host.pending).toBe(0);
    const next = await echo(host, 'next');
    expect(next.text).toBe('next');
    expect(next.threadId).not.toBe(first.threadId);
  });

  it('fails every request waiting with the error thrown out of the thread', async () => {
    const host = hostOf();
    const held = host.request((id) => ({ id, kind: 'hold' }));
    const thrown = host.request((id) => ({ id, kind: 'throw' }));
    const failures = await Promise.allSettled([held, thrown]);
    expect(failures.map(reasonOf)).toEqual(['thrown in the thread', 'thrown in the thread']);
    expect((await echo(host, 'again')).text).toBe('again');
  });

  it('fails the requests waiting when stopped, and starts again on the next request', async () => {
    const host = hostOf();
    const held = host.request((id) => ({ id, kind: 'hold' }));
    await host.stop();
    await expect(held).rejects.toThrow('test worker stopped');
    expect(host.running).toBe(false);
    expect((await echo(host, 'after stop')).text).toBe('after stop');
  });

  it('throws on a request when its thread cannot be created, leaving nothing running', () => {
    const host = hostOf({
      create: () => {
        throw new Error('no thread here');
      },
    });
    expect(() => host.request((id) => ({ id, kind: 'echo', text: 'x' }))).toThrow('no thread here');
    expect(host.running).toBe(false);
  });

  it('hands a message without an id to onNotice', async () => {
    const notices: unknown[] = [];
    const host = hostOf({ onNotice: (message) => notices.push(message) });
    expect((await host.request<Echo>((id) => ({ id, kind: 'log', text: 'a line' }))).text).toBe('logged');
    expect(notices).toEqual([{ log: 'a line' }]);
    expect(host.pending).toBe(0);
  });

  it('keeps an exchange open over several replies, each answered with a message of the same id', async () => {
    const host = hostOf();
    const seen: number[] = [];
    const receive = (reply: { left: number }, exchange: WorkerThreadExchange<number[]>) => {
      seen.push(reply.left);
      if (reply.left === 0) exchange.resolve(seen);
      else exchange.post({ id: exchange.id, kind: 'next' });
    };
    expect(await host.exchange((id) => ({ id, kind: 'count', n: 4 }), receive)).toEqual([3, 2, 1, 0]);
    expect(host.pending).toBe(0);
    const failing = () => {
      throw new Error('a reply it cannot read');
    };
    await expect(host.exchange((id) => ({ id, kind: 'count', n: 2 }), failing)).rejects.toThrow(
      'a reply it cannot read',
    );
    expect(host.pending).toBe(0);
  });
});
