import { TokenCounter } from './token-counter';
import { TokenCountWorker } from './token-count.worker';

describe(TokenCountWorker.name, () => {
  let worker: TokenCountWorker;
  afterEach(() => worker.stop());

  it('counts as TokenCounter does, in a thread started on the first count', async () => {
    worker = new TokenCountWorker();
    expect(worker.running).toBe(false);
    const texts = [
      'RELEVANT NODES:\n[2]{key,type}:\n  fetch-api,api-call',
      'Les nœuds « filtre » reçoivent des données.',
      'x'.repeat(5000),
    ];
    const counts = await Promise.all(texts.map((text) => worker.count(text)));
    expect(worker.running).toBe(true);
    const counter = new TokenCounter();
    expect(counts).toEqual(texts.map((text) => counter.count(text)));
    expect(await worker.count('')).toBe(0);
  });

  it('stops after its idle time and starts again on the next count', async () => {
    worker = new TokenCountWorker(50);
    expect(await worker.count('hello world')).toBeGreaterThan(0);
    const deadline = Date.now() + 5_000;
    while (worker.running && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(worker.running).toBe(false);
    expect(await worker.count('hello world')).toBe(new TokenCounter().count('hello world'));
  });

  it('fails the counts still waiting when it is stopped', async () => {
    worker = new TokenCountWorker();
    const waiting = worker.count('a text counted while the worker loads');
    await worker.stop();
    await expect(waiting).rejects.toThrow('stopped');
  });
});
