import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { AutomationScheduler } from '../../src/automations/automation.scheduler';
import { ManualClock } from '../support/manual-clock';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';
import { TestAppProcess } from '../support/test-app.process';

const GRAPH = 'nba-workflow';
const at = (iso: string) => Date.parse(iso);

interface RunView {
  runId: string;
  threadId: string | null;
  trigger: string;
  slotTime?: number;
  outcome: string;
  error?: { code: string };
}

/** Every run of the automation, newest first, once none is running any more. */
async function settledRuns(url: string, automationId: string, count: number): Promise<RunView[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const runs: RunView[] = (await request(url).get(`/api/ai/automations/${automationId}/runs`).expect(200)).body;
    if (runs.length >= count && runs.every((run) => run.outcome !== 'running')) return runs;
    if (Date.now() > deadline) throw new Error(`expected ${count} settled runs, got ${JSON.stringify(runs)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe(`${AutomationScheduler.name} (docs/automations.md, scheduling)`, () => {
  let server: ScriptedLlmServer;
  let dataDir: string;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    dataDir = mkdtempSync(path.join(tmpdir(), 'automations-schedule-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('with a controllable clock and real restarts on one data directory', () => {
    const clock = new ManualClock(at('2031-01-06T09:30:00Z'));
    // The scheduler looks at start, then not for a minute: each look below is the test's own tick().
    const env = () => ({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      DATA_DIR: dataDir,
      AUTOMATION_POLL_MS: '60000',
    });
    const boot = () => startTestApp(env(), { clock });
    /** One look at the store (besides the one at start), then every run of the automation once settled. */
    const tick = async (app: TestApp, automationId: string, expectedRuns: number) => {
      await app.app.get(AutomationScheduler).tick();
      return settledRuns(app.url, automationId, expectedRuns);
    };

    it('neither skips a due run nor repeats one across restarts, and gives slots missed while down one run', async () => {
      clock.set(at('2031-01-06T09:30:00Z'));
      let app = await boot();
      let automationId: string;
      try {
        const created = await request(app.url)
          .post('/api/ai/automations')
          .send({
            name: 'Hourly',
            graphKey: GRAPH,
            prompt: 'Hourly check at {{now}}',
            schedule: { cron: '0 * * * *', timezone: 'UTC' },
          })
          .expect(200);
        automationId = created.body.automationId;
        expect(created.body.nextRunTime).toBe(at('2031-01-06T10:00:00Z'));
        expect(await tick(app, automationId, 0)).toEqual([]);

        server.enqueue({ text: 'Run of 10:00.' });
        clock.set(at('2031-01-06T10:00:05Z'));
        const first = await tick(app, automationId, 1);
        expect(first.map((run) => [run.trigger, run.slotTime, run.outcome])).toEqual([
          ['schedule', at('2031-01-06T10:00:00Z'), 'completed'],
        ]);
      } finally {
        await app.close({ keepData: true });
      }

      // Restarted in the middle of the interval: nothing is due, nothing runs.
      clock.set(at('2031-01-06T10:40:00Z'));
      app = await boot();
      try {
        expect(await tick(app, automationId, 1)).toHaveLength(1);
        // The 11:00 slot comes while it runs: one run.
        server.enqueue({ text: 'Run of 11:00.' });
        clock.set(at('2031-01-06T11:00:01Z'));
        expect((await tick(app, automationId, 2))[0]).toMatchObject({
          slotTime: at('2031-01-06T11:00:00Z'),
          outcome: 'completed',
        });
      } finally {
        await app.close({ keepData: true });
      }

      // Restarted right after that run: it is not repeated.
      clock.set(at('2031-01-06T11:00:30Z'));
      app = await boot();
      try {
        expect(await tick(app, automationId, 2)).toHaveLength(2);
        expect((await request(app.url).get(`/api/ai/automations/${automationId}`).expect(200)).body.nextRunTime).toBe(
          at('2031-01-06T12:00:00Z'),
        );
      } finally {
        await app.close({ keepData: true });
      }

      // Down from 11:00:30 to 14:10: the 12:00, 13:00 and 14:00 slots give one run, at start.
      server.enqueue({ text: 'Catching up.' });
      clock.set(at('2031-01-06T14:10:00Z'));
      app = await boot();
      try {
        const runs = await settledRuns(app.url, automationId, 3);
        expect(await tick(app, automationId, 3)).toHaveLength(3);
        expect(runs[0]).toMatchObject({
          trigger: 'schedule',
          slotTime: at('2031-01-06T12:00:00Z'),
          outcome: 'completed',
        });
        expect((await request(app.url).get(`/api/ai/automations/${automationId}`).expect(200)).body.nextRunTime).toBe(
          at('2031-01-06T15:00:00Z'),
        );
        expect(server.requests).toHaveLength(3);
        // {{now}} is the run's time in the automation's zone, from the clock.
        const thread = (await request(app.url).get(`/api/ai/thread/${runs[0].threadId}`).expect(200)).body;
        expect(thread.messages[0].content).toBe('Hourly check at 2031-01-06T14:10:00+00:00');
      } finally {
        await app.close();
      }
    });

    it('stops a run cleanly at shutdown: recorded failed (aborted), its thread valid, not repeated after the restart', async () => {
      clock.set(at('2031-02-03T08:59:00Z'));
      let app = await boot();
      let automationId: string;
      try {
        automationId = (
          await request(app.url)
            .post('/api/ai/automations')
            .send({
              name: 'Long',
              graphKey: GRAPH,
              prompt: 'Walk me through the workflow',
              schedule: { cron: '0 9 * * *', timezone: 'Europe/Paris' },
            })
            .expect(200)
        ).body.automationId;
        server.enqueue({ text: 'The workflow starts at root and then', chunkSize: 4, hangAfterChunks: 3 });
        clock.set(at('2031-02-04T08:00:10Z')); // 09:00:10 in Paris
        await app.app.get(AutomationScheduler).tick();
        await server.waitForRequests(1);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await app.close({ keepData: true });
      }
      await server.waitForClientClose(0);

      clock.set(at('2031-02-04T08:01:00Z'));
      app = await boot();
      try {
        const runs = await tick(app, automationId, 1);
        expect(runs).toHaveLength(1);
        expect(runs[0]).toMatchObject({ outcome: 'failed', error: { code: 'aborted' } });
        const thread = (await request(app.url).get(`/api/ai/thread/${runs[0].threadId}`).expect(200)).body;
        expect(thread.messages.at(-1)).toMatchObject({
          role: 'assistant',
          aborted: true,
          content: expect.stringMatching(/^The work/),
        });
        expect(server.requests).toHaveLength(1);
      } finally {
        await app.close();
      }
    });
  });

  describe('two service processes on one SQLite file, in real time', () => {
    it('runs an automation whose cron expression is a few seconds ahead by itself, once', async () => {
      const env = {
        ...server.providerEnv('openai'),
        EMBEDDING_PROVIDER: 'local',
        DATA_DIR: dataDir,
        AUTOMATION_POLL_MS: '200',
      };
      const first = await startTestApp(env);
      const second = await TestAppProcess.start(env);
      try {
        server.enqueue({ text: 'Report of the second.' });
        const slot = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000);
        const cron = `${slot.getUTCSeconds()} ${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`;
        const created = await request(second.url)
          .post('/api/ai/automations')
          .send({ name: 'Soon', graphKey: GRAPH, prompt: 'Report at {{now}}', schedule: { cron, timezone: 'UTC' } })
          .expect(200);
        expect(created.body.nextRunTime).toBe(slot.getTime());

        const [run] = await settledRuns(first.url, created.body.automationId, 1);
        expect(run).toMatchObject({ trigger: 'schedule', slotTime: slot.getTime(), outcome: 'completed' });
        // Both instances keep polling for a while: still one run, one upstream request.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(await settledRuns(second.url, created.body.automationId, 1)).toHaveLength(1);
        expect(server.requests).toHaveLength(1);
        const thread = (await request(second.url).get(`/api/ai/thread/${run.threadId}`).expect(200)).body;
        expect(thread).toMatchObject({ type: 'automation', automationId: created.body.automationId });
        expect(thread.messages[0].content).toMatch(/^Report at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
      } finally {
        await second.close();
        await first.close({ keepData: true });
      }
    }, 30_000);
  });
});
