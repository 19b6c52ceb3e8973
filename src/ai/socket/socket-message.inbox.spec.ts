import { setImmediate as nextTurn } from 'node:timers/promises';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { SocketMessageInbox } from './socket-message.inbox';

describe(SocketMessageInbox.name, () => {
  it('handles messages in a later turn, in arrival order, at most perTurn per turn, and drops none', async () => {
    const inbox = new SocketMessageInbox(3);
    const handled: Array<{ message: number; turn: number }> = [];
    let turn = 0;
    const tick = () => {
      turn++;
      if (inbox.size > 0 || handled.length < 10) setImmediate(tick);
    };
    setImmediate(tick);
    for (let message = 0; message < 10; message++) inbox.post(() => handled.push({ message, turn }));
    expect(handled).toEqual([]);
    expect(inbox.size).toBe(10);

    while (handled.length < 10) await nextTurn();
    expect(handled.map((entry) => entry.message)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const perTurn = new Map<number, number>();
    for (const entry of handled) perTurn.set(entry.turn, (perTurn.get(entry.turn) ?? 0) + 1);
    expect([...perTurn.values()]).toEqual([3, 3, 3, 1]);
    expect(inbox.size).toBe(0);
  });

  it('keeps the order of messages posted while it drains (they wait for a later turn)', async () => {
    const inbox = new SocketMessageInbox(2);
    const handled: string[] = [];
    inbox.post(() => {
      handled.push('a');
      inbox.post(() => handled.push('c'));
    });
    inbox.post(() => handled.push('b'));
    while (handled.length < 3) await nextTurn();
    expect(handled).toEqual(['a', 'b', 'c']);
  });

  it('logs a handler that throws and goes on with the next ones', async () => {
    const logged: LogEntry[] = [];
    setLogSink((entry) => logged.push(entry));
    try {
      const inbox = new SocketMessageInbox(8);
      const handled: number[] = [];
      inbox.post(() => handled.push(1));
      inbox.post(() => {
        throw new Error('boom');
      });
      inbox.post(() => handled.push(3));
      while (handled.length < 2) await nextTurn();
      expect(handled).toEqual([1, 3]);
      expect(logged).toEqual([
        expect.objectContaining({ level: 'error', event: 'socket_message_failed', error: 'Error: boom' }),
      ]);
    } finally {
      resetLogSink();
    }
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => new SocketMessageInbox(0)).toThrow(RangeError);
  });
});
