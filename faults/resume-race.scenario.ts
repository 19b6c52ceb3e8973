import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { threadProblems } from './thread-validity';

const GRAPH = 'nba-workflow';

export interface ResumeRaceOptions {
  /** Resumes of the one interrupt sent at once, split between the two processes. */
  resumes: number;
  /** Interrupts raced, one after the other (each with `resumes` resumes). */
  rounds?: number;
}

export interface ResumeRaceResult {
  rounds: number;
  resumesPerRound: number;
  /** Per round: resumes answered 200 (the one that applied). */
  applied: number[];
  /** Per round: nodes the proposal created in the graph (1: applied exactly once). */
  nodesCreated: number[];
  /** Answers other than 200 and 409 (thread_busy or conflict "no pending interrupt"), or 5xx. */
  unexpected: string[];
  /** Rounds whose thread failed threadProblems() afterwards. */
  invalidThreads: number;
  /** Upstream continuations requested (one per applied resume). */
  continuations: number;
}

/**
 * One pending proposal, `resumes` approvals of it at once over REST, split between two service
 * processes sharing one SQLite store (as two instances behind a load balancer): exactly one applies
 * (200, the node created once, one continuation upstream), every other one is refused with 409
 * (thread_busy while the winner runs, conflict once it has settled the proposal), and the thread
 * stays valid.
 */
export async function runResumeRaceScenario(options: ResumeRaceOptions): Promise<ResumeRaceResult> {
  const rounds = options.rounds ?? 1;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-resume-race-'));
  const server = await ScriptedLlmServer.start();
  const env = {
    ...server.providerEnv('openai'),
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'error',
  };
  const first = await TestAppProcess.start(env, { timeoutMs: 60_000 });
  const second = await TestAppProcess.start(env, { timeoutMs: 60_000 });
  const result: ResumeRaceResult = {
    rounds,
    resumesPerRound: options.resumes,
    applied: [],
    nodesCreated: [],
    unexpected: [],
    invalidThreads: 0,
    continuations: 0,
  };
  try {
    for (let round = 0; round < rounds; round += 1) {
      const nodeKey = `raced-${round}`;
      server.reset();
      server.enqueue({
        text: 'I propose a logging node.',
        toolCalls: [
          {
            id: `call_race_${round}`,
            name: 'propose_create_node',
            arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 820, posY: 300, reason: 'Log the errors' },
          },
        ],
      });
      const proposed = await request(first.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: `Add a logging node (${round})` });
      if (proposed.body.type !== 'interrupt')
        throw new Error(`round ${round}: no interrupt: ${JSON.stringify(proposed.body).slice(0, 300)}`);
      const threadId = proposed.body.threadId as string;
      // As many continuations as resumes: a double apply would show as a second upstream call, not as an exhausted script.
      for (let index = 0; index < options.resumes; index += 1) server.enqueue({ text: 'Added the logging node.' });
      const before = server.requests.length;

      const answers = await Promise.all(
        Array.from({ length: options.resumes }, (_, index) =>
          request((index % 2 === 0 ? first : second).url)
            .post('/api/ai/resume')
            .send({ threadId, approved: true }),
        ),
      );
      result.continuations += server.requests.filter(
        (item, index) => index >= before && item.endpoint === 'openai.chat',
      ).length;
      result.applied.push(answers.filter((answer) => answer.status === 200).length);
      for (const answer of answers) {
        const refused = answer.status === 409 && ['thread_busy', 'conflict'].includes(answer.body.code);
        if (answer.status !== 200 && !refused)
          result.unexpected.push(`${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      }
      const exported = (await request(second.url).get(`/api/graphs/${GRAPH}`)).body as {
        nodes: Array<{ _key: string }>;
      };
      result.nodesCreated.push(exported.nodes.filter((node) => node._key === nodeKey).length);
      const view = (await request(second.url).get(`/api/ai/thread/${threadId}`)).body;
      if (threadProblems(view, [`Add a logging node (${round})`]).length > 0 || view.pendingInterrupt !== null)
        result.invalidThreads += 1;
    }
    return result;
  } finally {
    await first.close();
    await second.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
