import { runRedisFaultsScenario } from './redis-faults.scenario';

/**
 * The CI-sized run of `npm run faults`'s redis section (faults/redis-faults.scenario.ts: six faults there):
 * three service instances on one real redis-server, nine streams each time, Redis made full, every
 * connection killed in turn, and the server stopped for 2 s (5 s there), each while the streams run.
 */
describe('Redis faults against three instances while streams run (CI sample)', () => {
  it('aborts no stream, loses or repeats no event on a rejoin, and leaves no overlay replica apart from Redis 5 s after the recovery', async () => {
    const { outcomes } = await runRedisFaultsScenario({
      faults: ['full', 'client-kill', 'sigstop'],
      holdMs: { sigstop: 2_000 },
      overlayChanges: 6,
    });
    for (const outcome of outcomes) {
      expect({ fault: outcome.fault, problems: outcome.problems }).toEqual({ fault: outcome.fault, problems: [] });
      expect(outcome).toMatchObject({
        streamingAtFault: outcome.streams,
        injectionsWhileStreaming: outcome.injections,
        aborted: 0,
        eventsLost: 0,
        eventsDuplicated: 0,
        answersStored: outcome.streams,
        overlay: { posted: 6, accepted: 6, divergences: 0 },
      });
      expect(outcome.rejoins).toEqual({ 'rejoined-here': 3, 'rejoined-elsewhere': 3 });
      expect(outcome.rejoinsRefused['rejoined-here']).toBe(0);
    }
    const [full, kill, stop] = outcomes;
    // A full Redis refuses the logs' writes: each request goes on logged on its own instance only.
    expect(full.rejoinsRefused['rejoined-elsewhere']).toBe(3);
    expect(full.overlay.kept).toBe(0);
    for (const shared of [kill, stop]) {
      expect(shared.rejoinsRefused['rejoined-elsewhere']).toBe(0);
      expect(shared.overlay.kept).toBe(6);
    }
    expect(kill.injections).toBeGreaterThanOrEqual(15); // about six connections per instance
    expect(kill.connectionsClosed).toBe(kill.injections);
  }, 240_000);
});
