import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { RecordedRequest, ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { isMemorySummaryCall, MEMORY_SUMMARY } from './memory-summary.answer';
import { threadProblems } from './thread-validity';

const GRAPH = 'nba-workflow';
/** Each answer's length: the history outgrows the window after a few questions. */
const ANSWER_CHARS = 6_000;
export interface ContextLengthOptions {
  /** Questions asked one after the other on one thread. */
  questions: number;
  /**
   * The model's context window, in the scripted server's tokens (4 characters each): over it a prompt
   * is refused with OpenAI's own context_length_exceeded. Default 17,000: AI_HISTORY_MAX_TOKENS'
   * default budget of history (24,000 estimated tokens) does not fit beside the tools, half of it does.
   */
  contextWindow?: number;
}

export interface ContextLengthResult {
  questions: number;
  contextWindow: number;
  /** Questions answered at the first attempt. */
  answeredDirectly: number;
  /** Questions whose first prompt was refused and whose retry with the smaller context was answered. */
  answeredAfterRetry: number;
  /** Questions that failed (context_length even after the retry, or anything else). */
  failed: number;
  /** Prompts the server refused as too long. */
  refusedPrompts: number;
  invalidThreads: number;
  problems: string[];
}

/**
 * Context-length recovery: one conversation against the real service in a child process, each answer
 * ~6,000 characters long, on a scripted model whose window is smaller than the history budget. Once
 * the history no longer fits, each question's first prompt is refused (context_length) and retried
 * once with fewer retrieved nodes, shorter texts and half the history. Bars: every question answered
 * (directly or after one retry), the thread valid with every question.
 */
export async function runContextLengthScenario(options: ContextLengthOptions): Promise<ContextLengthResult> {
  const contextWindow = options.contextWindow ?? 17_000;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-context-length-'));
  const server = await ScriptedLlmServer.start({ contextLength: contextWindow });
  const service = await TestAppProcess.start(
    {
      ...server.providerEnv('openai'),
      DATA_DIR: dataDir,
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
    },
    { timeoutMs: 60_000 },
  );
  const result: ContextLengthResult = {
    questions: options.questions,
    contextWindow,
    answeredDirectly: 0,
    answeredAfterRetry: 0,
    failed: 0,
    refusedPrompts: 0,
    invalidThreads: 0,
    problems: [],
  };
  const client = await AiSocketClient.connect(service.url);
  const asked: string[] = [];
  let threadId: string | undefined;
  try {
    for (let turn = 0; turn < options.questions; turn += 1) {
      server.reset();
      const answer = `Answer ${turn}: ${'fetch-api calls the NBA stats API, then sorts and filters. '.repeat(ANSWER_CHARS / 60)}`;
      // Conversation memory's summary calls go to the same model in the background: whichever
      // request comes gets its own kind of answer, and there are enough for them and the question.
      server.enqueue(
        ...Array.from(
          { length: 4 },
          () => (recorded: RecordedRequest) => (isMemorySummaryCall(recorded) ? MEMORY_SUMMARY : { text: answer }),
        ),
      );
      const message = `Question ${turn}: what does fetch-api do?`;
      asked.push(message);
      const done = await client.chat(
        { _id: turn + 1, graphKey: GRAPH, message, ...(threadId ? { threadId } : {}) },
        60_000,
      );
      threadId = (done.events[0]?.payload as { threadId?: string } | undefined)?.threadId ?? threadId;
      const refused = server.requests.filter((recorded) => recorded.status === 400).length;
      result.refusedPrompts += refused;
      if (!done.complete) {
        result.failed += 1;
        result.problems.push(`question ${turn}: ${JSON.stringify(done.error)}`);
      } else if (refused > 0) {
        result.answeredAfterRetry += 1;
      } else {
        result.answeredDirectly += 1;
      }
    }
    if (threadId) {
      const problems = threadProblems((await request(service.url).get(`/api/ai/thread/${threadId}`)).body, asked);
      if (problems.length > 0) {
        result.invalidThreads += 1;
        result.problems.push(`thread ${threadId}: ${problems.join('; ')}`);
      }
    }
    return result;
  } finally {
    client.close();
    await service.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
