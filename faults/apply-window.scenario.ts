import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { ScriptedLlmServer, ScriptedToolCall } from '../test/support/scripted-llm-server';
import { seededRandom } from '../test/support/seeded-random';
import { TestAppProcess } from '../test/support/test-app.process';
import { threadProblems, ThreadViewForCheck } from './thread-validity';

const GRAPH = 'nba-workflow';
/** The dead process's run lease expires this soon (THREAD_LEASE_MS): a retry is refused for about this long. */
const LEASE_MS = 1_000;
/** Longest a retry waits for the dead process's lease to expire. */
const RETRY_FOR_MS = 15_000;

export interface ApplyWindowOptions {
  /** Approvals killed in their apply window (between the decision's operation and the thread's commit). */
  approvalKills: number;
  /** Autonomous batches killed between one of their applies and the round's commit. */
  batchKills: number;
  /** Approve and reject of one proposal sent at once to two processes, the approving one killed every other round. */
  raceRounds: number;
  /** Proposals whose touched node a human changes before the approval (some with a kill in a later window). */
  staleChecks: number;
  /** Undos of a change a human changed since (refused), and undos killed in their revert window. */
  revertChecks: number;
  seed?: number;
}

export interface ApplyWindowResult {
  approvalKills: { aimed: number; landed: number };
  batchKills: { aimed: number; landed: number };
  revertKills: { aimed: number; landed: number };
  /** Changes found twice in the graph (or a second node for one proposal, or a "failed: already exists" result). */
  doubleApplies: number;
  /** Killed or raced threads whose messages do not say what became of the change (a tool result and an event). */
  untold: number;
  /** Threads that failed threadProblems() after a restart. */
  invalidThreads: number;
  race: { rounds: number; approved: number; rejected: number; killed: number; notOneOutcome: number };
  staleApplied: number;
  staleChecked: number;
  revertsOverwritingHumanEdits: number;
  revertsChecked: number;
  /** Size of an applied operation's record in the change log (bytes of its JSON), over every one this run stored. */
  recordBytes: { operations: number; average: number; max: number };
  problems: string[];
}

/** A thread as GET /api/ai/thread/:threadId answers it, with its events. */
interface ThreadWithEvents extends ThreadViewForCheck {
  messages: Array<ThreadViewForCheck['messages'][number] & { event?: { type: string; operationIds?: string[] } }>;
}

interface Proposed {
  threadId: string;
  interrupt: { toolCallId: string } | null;
}

/**
 * The apply window: the service, in child processes on one SQLite store, is
 * killed with SIGKILL exactly inside the window between a change's operation (committed with the graph write) and
 * the thread's commit that says what became of it: approvals, autonomous batches, reverts. The kill is aimed (the
 * process reports, from inside the window, that it holds there: faults/apply-window.setup.ts) and counted as landed
 * only when the store shows it landed there (the operation recorded, the thread not yet told). After each restart the
 * approval is retried or a new message sent, and the change must be in the graph exactly once and the thread must say
 * what happened to it. Approve and reject raced across two processes (the approving one killed every other round)
 * must have exactly one outcome. Stale proposals are never applied, and a revert never overwrites a human's later edit.
 */
export async function runApplyWindowScenario(options: ApplyWindowOptions): Promise<ApplyWindowResult> {
  const random = seededRandom(options.seed ?? 1);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-apply-window-'));
  const server = await ScriptedLlmServer.start();
  const env = {
    ...server.providerEnv('openai'),
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    THREAD_LEASE_MS: String(LEASE_MS),
    LOG_LEVEL: 'error',
  };
  const setupModule = path.join(__dirname, `apply-window.setup${path.extname(__filename)}`);
  const start = () => TestAppProcess.start(env, { timeoutMs: 60_000, setupModule });
  const result: ApplyWindowResult = {
    approvalKills: { aimed: 0, landed: 0 },
    batchKills: { aimed: 0, landed: 0 },
    revertKills: { aimed: 0, landed: 0 },
    doubleApplies: 0,
    untold: 0,
    invalidThreads: 0,
    race: { rounds: 0, approved: 0, rejected: 0, killed: 0, notOneOutcome: 0 },
    staleApplied: 0,
    staleChecked: 0,
    revertsOverwritingHumanEdits: 0,
    revertsChecked: 0,
    recordBytes: { operations: 0, average: 0, max: 0 },
    problems: [],
  };
  let first = await start();
  let second: TestAppProcess | null = null;

  const problem = (text: string) => result.problems.push(text);
  const api = (service: TestAppProcess = first) => request(service.url);
  const nodeCount = async (key: string) =>
    ((await api().get(`/api/graphs/${GRAPH}`).expect(200)).body.nodes as Array<{ _key: string }>).filter(
      (node) => node._key === key,
    ).length;
  const nodeOf = async (key: string) =>
    ((await api().get(`/api/graphs/${GRAPH}`).expect(200)).body.nodes as Array<Record<string, unknown>>).find(
      (node) => node._key === key,
    );
  const threadOf = async (threadId: string) =>
    (await api().get(`/api/ai/thread/${threadId}`).expect(200)).body as ThreadWithEvents;
  const changesOf = async (threadId: string) =>
    (await api().get(`/api/ai/thread/${threadId}/changes`).expect(200)).body as Array<{
      operationId: string;
      actor: { via: string };
      revertedBy?: string;
    }>;
  const createNode = (id: string, nodeKey: string): ScriptedToolCall => ({
    id,
    name: 'propose_create_node',
    arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 300, reason: 'Log the errors' },
  });
  /** Retries a request refused while the dead process's lease lasts (409 thread_busy). */
  const retryBusy = async (send: () => Promise<request.Response>): Promise<request.Response> => {
    const deadline = Date.now() + RETRY_FOR_MS;
    for (;;) {
      const answer = await send();
      if (answer.status !== 409 || answer.body.code !== 'thread_busy' || Date.now() > deadline) return answer;
      await sleep(100);
    }
  };
  /** Arms the process, sends the request, and kills the process when it reports it holds inside the window. */
  const killInWindow = async (
    service: TestAppProcess,
    arming: { kind: 'apply' | 'revert'; after: number },
    send: () => Promise<unknown>,
  ): Promise<string | null> => {
    const holding = service.request({ applyWindow: 'arm', ...arming }, (reply) =>
      (reply as { applyWindow?: string }).applyWindow === 'holding' ? (reply as { operationId: string }) : undefined,
    );
    const sent = send().then(
      () => null,
      () => null,
    );
    const inWindow = await Promise.race([holding, sent]);
    if (!inWindow) {
      await service.request({ applyWindow: 'disarm' }, (reply) =>
        (reply as { applyWindow?: string }).applyWindow === 'disarmed' ? true : undefined,
      );
      return null;
    }
    await service.kill('SIGKILL');
    return inWindow.operationId;
  };
  const restartFirst = async () => {
    first = await start();
  };
  const checkValid = async (threadId: string, what: string) => {
    const problems = threadProblems(await threadOf(threadId));
    if (problems.length > 0) {
      result.invalidThreads += 1;
      problem(`${what}: ${problems.join('; ')}`);
    }
  };
  /** The thread says what became of the change: the call's tool result, and an event listing its operation. */
  const tells = async (threadId: string, callId: string, operationId: string, status: string) => {
    const thread = await threadOf(threadId);
    const result = thread.messages.find((message) => message.role === 'tool' && message.toolCallId === callId);
    const event = thread.messages.some((message) => message.event?.operationIds?.includes(operationId));
    return result !== undefined && (JSON.parse(result.content) as { status: string }).status === status && event;
  };

  try {
    // 1. Approvals killed in their apply window, then retried or superseded by a new message.
    for (let round = 0; round < options.approvalKills; round += 1) {
      const key = `aw-${round}`;
      const callId = `call_aw_${round}`;
      server.reset();
      server.enqueue({ toolCalls: [createNode(callId, key)] });
      const proposed = (
        await api()
          .post('/api/ai/chat')
          .send({ graphKey: GRAPH, message: `Add ${key}` })
          .expect(200)
      ).body as Proposed;
      const { threadId } = proposed;
      result.approvalKills.aimed += 1;
      const operationId = await killInWindow(first, { kind: 'apply', after: 1 }, () =>
        api().post('/api/ai/resume').send({ threadId, approved: true }),
      );
      await restartFirst();
      const stored = await threadOf(threadId);
      const recorded = (await changesOf(threadId)).some((change) => change.operationId === `${threadId}:${callId}`);
      if (operationId && stored.pendingInterrupt && recorded) result.approvalKills.landed += 1;
      else problem(`approval ${round}: the kill did not land in the window`);
      await checkValid(threadId, `approval ${round} after the restart`);

      const retryWithApprove = random() < 0.5;
      server.enqueue({ text: retryWithApprove ? 'Added.' : 'Noted.' });
      const retried = await retryBusy(() =>
        retryWithApprove
          ? api().post('/api/ai/resume').send({ threadId, approved: true })
          : api().post('/api/ai/chat').send({ graphKey: GRAPH, message: 'What did you do?', threadId }),
      );
      if (retried.status !== 200)
        problem(`approval ${round}: the retry answered ${retried.status} ${JSON.stringify(retried.body)}`);
      if (retryWithApprove && retried.body.resolution?.operationId !== `${threadId}:${callId}`)
        problem(`approval ${round}: the retried approval answered ${JSON.stringify(retried.body.resolution)}`);
      if ((await nodeCount(key)) !== 1) result.doubleApplies += 1;
      if (!(await tells(threadId, callId, `${threadId}:${callId}`, 'approved'))) {
        result.untold += 1;
        problem(`approval ${round}: the thread does not say the change was applied`);
      }
      await checkValid(threadId, `approval ${round} after the retry`);
    }

    // 2. Autonomous batches killed between their applies and the round's commit, then a new message.
    if (options.batchKills > 0)
      await api()
        .put('/api/ai/policy')
        .send({ default: { create_node: 'autonomous' } })
        .expect(200);
    for (let round = 0; round < options.batchKills; round += 1) {
      const keys = [1, 2, 3].map((index) => `bk-${round}-${index}`);
      const calls = keys.map((key, index) => createNode(`call_bk_${round}_${index}`, key));
      const after = 1 + (round % 2);
      server.reset();
      server.enqueue({ toolCalls: calls });
      result.batchKills.aimed += 1;
      let threadId = '';
      const operationId = await killInWindow(first, { kind: 'apply', after }, async () => {
        const answer = await api()
          .post('/api/ai/chat')
          .send({ graphKey: GRAPH, message: `Add ${keys.join(', ')}` });
        threadId = answer.body.threadId as string;
      });
      await restartFirst();
      threadId ||= (operationId ?? '').split(':')[0];
      const thread = await threadOf(threadId);
      const applied = (await changesOf(threadId)).map((change) => change.operationId);
      const answered = thread.messages.filter((message) => message.role === 'tool').length;
      if (operationId && applied.length === after && answered === 0) result.batchKills.landed += 1;
      else
        problem(`batch ${round}: the kill did not land in the window (${applied.length} applied, ${answered} results)`);
      await checkValid(threadId, `batch ${round} after the restart`);

      server.enqueue({ text: 'Noted.' });
      const next = await retryBusy(() =>
        api().post('/api/ai/chat').send({ graphKey: GRAPH, message: 'What did you change?', threadId }),
      );
      if (next.status !== 200) problem(`batch ${round}: the next message answered ${next.status}`);
      for (const [index, key] of keys.entries()) {
        const count = await nodeCount(key);
        if (count > 1 || (index < after && count !== 1) || (index >= after && count !== 0)) result.doubleApplies += 1;
      }
      const told = (await threadOf(threadId)).messages.find((message) =>
        applied.every((id) => message.event?.operationIds?.includes(id)),
      );
      const seen = JSON.stringify(server.requests.at(-1)?.body.messages ?? []).includes(
        '[SYSTEM] Applied before an interruption',
      );
      if (!told || !seen) {
        result.untold += 1;
        problem(`batch ${round}: the thread or the model was not told what was applied (${Boolean(told)}, ${seen})`);
      }
      await checkValid(threadId, `batch ${round} after the next message`);
    }
    if (options.batchKills > 0) await api().put('/api/ai/policy').send({}).expect(200);

    // 3. Approve and reject at once on two processes; every other round the approving one dies in its window.
    if (options.raceRounds > 0) second = await start();
    for (let round = 0; round < options.raceRounds; round += 1) {
      const key = `race-${round}`;
      const callId = `call_race_${round}`;
      server.reset();
      server.enqueue({ toolCalls: [createNode(callId, key)] });
      const { threadId } = (
        await api()
          .post('/api/ai/chat')
          .send({ graphKey: GRAPH, message: `Add ${key}` })
          .expect(200)
      ).body as Proposed;
      for (let index = 0; index < 8; index += 1) server.enqueue({ text: 'Settled.' });
      result.race.rounds += 1;
      const kill = round % 2 === 0;
      const approving = random() < 0.5 ? first : second!;
      const rejecting = approving === first ? second! : first;
      const approve = () => api(approving).post('/api/ai/resume').send({ threadId, approved: true });
      const reject = api(rejecting)
        .post('/api/ai/resume')
        .send({ threadId, approved: false })
        .then(
          (answer) => answer,
          () => null,
        );
      let killed = false;
      if (kill) killed = (await killInWindow(approving, { kind: 'apply', after: 1 }, approve)) !== null;
      else await approve().catch(() => null);
      await reject;
      if (killed) {
        result.race.killed += 1;
        if (approving === first) first = await start();
        else second = await start();
      }
      // Settle what a kill left pending: a random decision, on a random process, until one answers.
      for (let attempt = 0; (await threadOf(threadId)).pendingInterrupt && attempt < 20; attempt += 1) {
        const target = random() < 0.5 ? first : second!;
        await retryBusy(() =>
          api(target)
            .post('/api/ai/resume')
            .send({ threadId, approved: random() < 0.5 }),
        );
      }
      const thread = await threadOf(threadId);
      const decided = thread.messages.find((message) => message.role === 'tool' && message.toolCallId === callId);
      const status = decided ? (JSON.parse(decided.content) as { status: string }).status : 'none';
      const nodes = await nodeCount(key);
      if (nodes > 1) result.doubleApplies += 1;
      const oneOutcome = (status === 'approved' && nodes === 1) || (status === 'rejected' && nodes === 0);
      if (!oneOutcome) {
        result.race.notOneOutcome += 1;
        problem(`race ${round}: the thread says ${status} and the graph holds ${nodes} node(s)`);
      }
      if (status === 'approved') result.race.approved += 1;
      if (status === 'rejected') result.race.rejected += 1;
      await checkValid(threadId, `race ${round}`);
    }
    await second?.close();
    second = null;

    // 4. Stale proposals: the touched node changed by a human before the approval, never applied.
    for (let round = 0; round < options.staleChecks; round += 1) {
      const callId = `call_stale_${round}`;
      server.reset();
      server.enqueue({
        toolCalls: [
          {
            id: callId,
            name: 'propose_update_node',
            arguments: { nodeKey: 'fetch-api', changes: { 'data.staleCheck': round }, reason: 'tune' },
          },
        ],
      });
      const { threadId } = (
        await api()
          .post('/api/ai/chat')
          .send({ graphKey: GRAPH, message: `Tune fetch-api ${round}` })
          .expect(200)
      ).body as Proposed;
      const current = await nodeOf('fetch-api');
      await api()
        .post(`/api/graphs/${GRAPH}/changes`)
        .send({ upsertNodes: [{ ...current, posY: 1000 + round }], saved: true })
        .expect(202);
      server.enqueue({ text: 'It changed.' });
      const resumed = await api().post('/api/ai/resume').send({ threadId, approved: true }).expect(200);
      result.staleChecked += 1;
      const data = ((await nodeOf('fetch-api'))?.data ?? {}) as Record<string, unknown>;
      if (resumed.body.resolution?.status !== 'stale' || data.staleCheck === round) result.staleApplied += 1;
    }

    // 5. Reverts: refused on a node a human changed since; killed in their window, then retried.
    for (let round = 0; round < options.revertChecks; round += 1) {
      const key = `rv-${round}`;
      const callId = `call_rv_${round}`;
      server.reset();
      server.enqueue({ toolCalls: [createNode(callId, key)] }, { text: 'Added.' });
      const { threadId } = (
        await api()
          .post('/api/ai/chat')
          .send({ graphKey: GRAPH, message: `Add ${key}` })
          .expect(200)
      ).body as Proposed;
      await api().post('/api/ai/resume').send({ threadId, approved: true }).expect(200);
      const humanEdits = round % 2 === 0;
      if (humanEdits) {
        const current = await nodeOf(key);
        await api()
          .post(`/api/graphs/${GRAPH}/changes`)
          .send({ upsertNodes: [{ ...current, posX: 4242 }], saved: true })
          .expect(202);
        const undone = await api().post(`/api/ai/thread/${threadId}/undo`).send({});
        result.revertsChecked += 1;
        const kept = await nodeOf(key);
        if (!kept || kept.posX !== 4242) result.revertsOverwritingHumanEdits += 1;
        if (undone.status !== 200 || undone.body.refused?.[0]?.reason !== 'changed_since')
          problem(`revert ${round}: a changed node was not refused (${undone.status} ${JSON.stringify(undone.body)})`);
        continue;
      }
      result.revertKills.aimed += 1;
      const operationId = await killInWindow(first, { kind: 'revert', after: 1 }, () =>
        api().post(`/api/ai/thread/${threadId}/undo`).send({}),
      );
      await restartFirst();
      const reverted = (await changesOf(threadId)).find((change) => change.operationId === operationId);
      const told = (await threadOf(threadId)).messages.some((message) =>
        message.event?.operationIds?.includes(operationId ?? ''),
      );
      if (operationId && reverted && !told) result.revertKills.landed += 1;
      else problem(`revert ${round}: the kill did not land in the window`);
      // The retry finds nothing left to undo (409), and tells the thread what the first attempt did.
      const retried = await retryBusy(() => api().post(`/api/ai/thread/${threadId}/undo`).send({}));
      if (retried.status !== 409) problem(`revert ${round}: the retried undo answered ${retried.status}`);
      if ((await nodeCount(key)) !== 0) result.doubleApplies += 1;
      if (
        !(await threadOf(threadId)).messages.some((message) => message.event?.operationIds?.includes(operationId ?? ''))
      ) {
        result.untold += 1;
        problem(`revert ${round}: the thread does not say the revert happened`);
      }
      await checkValid(threadId, `revert ${round}`);
    }

    const db = new Database(path.join(dataDir, 'ai.sqlite'), { readonly: true });
    try {
      const sizes = db
        .prepare(
          "SELECT COUNT(*) AS operations, AVG(LENGTH(record)) AS average, MAX(LENGTH(record)) AS max FROM ai_operations WHERE status = 'applied'",
        )
        .get() as { operations: number; average: number | null; max: number | null };
      result.recordBytes = {
        operations: sizes.operations,
        average: Math.round(sizes.average ?? 0),
        max: sizes.max ?? 0,
      };
    } finally {
      db.close();
    }
    return result;
  } finally {
    await second?.close();
    await first.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
