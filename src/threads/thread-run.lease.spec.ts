import { ThreadServiceFixture } from '../../test/support/thread-service.fixture';
import { AppError } from '../errors/app-error';
import { ThreadRunLease } from './thread-run.lease';

describe(ThreadRunLease.name, () => {
  let fixture: ThreadServiceFixture;

  beforeEach(() => {
    fixture = new ThreadServiceFixture();
  });

  afterEach(async () => {
    await fixture.close();
  });

  /** Run a's lease of thread ai_t, taken in the repository, with a spy told when it ends. */
  const heldLease = async () => {
    const { repository } = fixture.instance();
    const ended = jest.fn();
    await repository.acquireLease('ai_t', 'run-a', 1_000, Date.now());
    return { repository, ended, lease: new ThreadRunLease(repository, 'ai_t', 'run-a', 1_000, ended) };
  };

  it('aborts its signal with thread_busy when another run took the expired lease over', async () => {
    const { repository } = fixture.instance();
    let now = 1_000_000;
    expect(await repository.acquireLease('ai_t', 'run-a', 1_000, now)).toBe(true);
    const lease = new ThreadRunLease(repository, 'ai_t', 'run-a', 1_000, undefined, () => now);
    now += 500;
    expect(await lease.renew()).toBe(true);
    now += 1_000;
    expect(await repository.acquireLease('ai_t', 'run-b', 1_000, now)).toBe(true);
    expect(await lease.renew()).toBe(false);
    expect(lease.lost).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(AppError);
    expect(lease.signal.reason).toMatchObject({ code: 'thread_busy' });
    await lease.release();
    expect(await repository.acquireLease('ai_t', 'run-c', 1_000, now)).toBe(false); // release never frees another holder's lease
  });

  it('survives a store error until the lease would have expired', async () => {
    const { repository } = fixture.instance();
    let now = 0;
    const lease = new ThreadRunLease(repository, 'ai_t', 'run-a', 1_000, undefined, () => now);
    const renew = jest.spyOn(repository, 'renewLease').mockRejectedValue(new Error('database is locked'));
    now = 500;
    expect(await lease.renew()).toBe(false);
    expect(lease.lost).toBe(false);
    now = 1_000;
    await lease.renew();
    expect(lease.lost).toBe(true);
    renew.mockRestore();
  });

  it('releases once and reports its end', async () => {
    const { repository, ended, lease } = await heldLease();
    lease.start();
    await lease.release();
    await lease.release();
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await lease.renew()).toBe(false);
    expect(await repository.acquireLease('ai_t', 'run-b', 1_000, Date.now())).toBe(true);
  });
  it('ends with a write that releases it in the store: a renewal already on its way then is not taken for a loss', async () => {
    const { repository, ended, lease } = await heldLease();
    let renewed: (held: boolean) => void = () => undefined;
    const renew = jest
      .spyOn(repository, 'renewLease')
      .mockImplementationOnce(() => new Promise<boolean>((resolve) => (renewed = resolve)));
    const renewing = lease.renew();
    const holders: string[] = [];
    expect(
      await lease.endWith(async (holder) => {
        holders.push(holder);
        await repository.releaseLease('ai_t', holder);
        return 'written';
      }),
    ).toBe('written');
    renewed(false); // the renewal reached the store after the release
    expect(await renewing).toBe(false);
    expect(lease.lost).toBe(false);
    expect(holders).toEqual(['run-a']);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await lease.release()).toBe(true); // released already: nothing more to do
    await expect(lease.endWith(async () => 'again')).rejects.toMatchObject({ code: 'internal' });
    expect(ended).toHaveBeenCalledTimes(1);
    renew.mockRestore();
  });

  it('is still held (and renewed) when the write meant to end it fails', async () => {
    const { repository, ended, lease } = await heldLease();
    lease.start();
    await expect(lease.endWith(() => Promise.reject(new Error('database is locked')))).rejects.toThrow('locked');
    expect(ended).not.toHaveBeenCalled();
    expect(await lease.renew()).toBe(true);
    expect(await repository.acquireLease('ai_t', 'run-b', 1_000, Date.now())).toBe(false);
    await lease.release();
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await repository.acquireLease('ai_t', 'run-b', 1_000, Date.now())).toBe(true);
  });

  it('records the run’s usage with its release and says whether it did: not twice, not when the write fails', async () => {
    const { repository } = fixture.instance();
    const usage = {
      workspace: 'w-lease',
      usage: { promptTokens: 7, completionTokens: 3, cachedTokens: 0, totalTokens: 10, costUsd: 0.5, llmCalls: 1 },
      now: Date.now(),
    };
    await repository.acquireLease('ai_t', 'run-a', 1_000, Date.now());
    const lease = new ThreadRunLease(repository, 'ai_t', 'run-a', 1_000);
    expect(await lease.release(usage)).toBe(true);
    expect(await lease.release(usage)).toBe(false);
    expect(await repository.getWorkspaceUsage('w-lease')).toMatchObject({
      promptTokens: 7,
      totalTokens: 10,
      llmCalls: 1,
    });
    expect(await repository.acquireLease('ai_t', 'run-b', 1_000, Date.now())).toBe(true);

    const failing = new ThreadRunLease(repository, 'ai_t', 'run-b', 1_000);
    const release = jest.spyOn(repository, 'releaseLease').mockRejectedValue(new Error('database is locked'));
    expect(await failing.release(usage)).toBe(false);
    expect(await new ThreadRunLease(repository, 'ai_t', 'run-b', 1_000).release()).toBe(true); // nothing to record: never fails
    release.mockRestore();
    expect((await repository.getWorkspaceUsage('w-lease')).llmCalls).toBe(1);
  });
});
