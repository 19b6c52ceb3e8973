import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { isMemorySummaryCall, MEMORY_SUMMARY } from './memory-summary.answer';
import { threadProblems } from './thread-validity';

const GRAPH = 'nba-workflow';

export interface IsolationScenarioOptions {
  /** Conversations run at once, each on its own socket and thread. */
  conversations: number;
  /** Questions per conversation, one after the other (each with a read-tool round). */
  questions: number;
}

export interface IsolationScenarioResult {
  conversations: number;
  questions: number;
  /** Upstream requests (the model's calls) made for them. */
  upstreamRequests: number;
  /** Upstream requests that carried messages of more than one conversation. */
  mixedRequests: number;
  /** Threads holding a message of another conversation. */
  contaminatedThreads: number;
  /** Threads that failed threadProblems() or miss one of their questions. */
  invalidThreads: number;
  /** Times an upstream request carried another conversation than the one before it (how interleaved the load was). */
  interleavings: number;
  durationMs: number;
  problems: string[];
}

/** The conversation markers ("[c3 7]") an upstream request carried, in user turns, answers and tool results. */
function conversationsIn(recorded: RecordedRequest): Set<string> {
  const found = new Set<string>();
  for (const message of recorded.body.messages as Array<{ role: string; content: unknown }>) {
    if (message.role === 'system') continue;
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
    for (const match of text.matchAll(/\[(c\d+) \d+\]/g)) found.add(match[1]);
  }
  return found;
}

/** Answers from what the request carries: a read-tool round first, then an answer quoting the question (or memory's summary). */
function answerFrom(recorded: RecordedRequest): ScriptedTurn {
  if (isMemorySummaryCall(recorded)) return MEMORY_SUMMARY;
  const messages = recorded.body.messages as Array<{ role: string; content: string }>;
  const question = messages.findLast((message) => message.role === 'user')?.content ?? '';
  if (messages.at(-1)?.role !== 'tool') {
    return {
      text: `Looking into ${question}.`,
      chunkSize: 7,
      delayMs: 2,
      toolCalls: [{ name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
    };
  }
  return { text: `Answer to ${question}`, chunkSize: 5, delayMs: 2 };
}

/**
 * Isolation under load: `conversations` conversations at once against the real service in a child
 * process, each asking `questions` questions on its own thread over its own socket, with a
 * read-tool round per question. Bars: no upstream request carries two conversations, no thread
 * holds another's message, every thread valid with all its questions.
 */
export async function runIsolationScenario(options: IsolationScenarioOptions): Promise<IsolationScenarioResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-isolation-'));
  const server = await ScriptedLlmServer.start();
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
  const names = Array.from({ length: options.conversations }, (_, index) => `c${index}`);
  const result: IsolationScenarioResult = {
    conversations: options.conversations,
    questions: options.questions,
    upstreamRequests: 0,
    mixedRequests: 0,
    contaminatedThreads: 0,
    invalidThreads: 0,
    interleavings: 0,
    durationMs: 0,
    problems: [],
  };
  const started = Date.now();
  try {
    // Two requests per question, and memory's background summaries beside them.
    server.enqueue(...Array.from({ length: options.conversations * options.questions * 3 }, () => answerFrom));
    const threads = await Promise.all(
      names.map(async (name) => {
        const client = await AiSocketClient.connect(service.url);
        let threadId: string | undefined;
        try {
          for (let turn = 0; turn < options.questions; turn += 1) {
            const done = await client.chat(
              {
                _id: turn + 1,
                graphKey: GRAPH,
                message: `[${name} ${turn}] what does fetch-api do?`,
                ...(threadId ? { threadId } : {}),
              },
              60_000,
            );
            if (!done.complete)
              result.problems.push(`${name} question ${turn}: ${JSON.stringify(done.error ?? done.names)}`);
            threadId = done.complete?.threadId ?? threadId;
          }
        } finally {
          client.close();
        }
        return { name, threadId };
      }),
    );
    result.durationMs = Date.now() - started;

    const owners = server.requests
      .filter((recorded) => recorded.endpoint === 'openai.chat')
      .map((recorded) => [...conversationsIn(recorded)]);
    result.upstreamRequests = owners.length;
    result.mixedRequests = owners.filter((found) => found.length !== 1).length;
    result.interleavings = owners.slice(1).filter((found, index) => found[0] !== owners[index][0]).length;
    for (const { name, threadId } of threads) {
      if (!threadId) {
        result.invalidThreads += 1;
        continue;
      }
      const view = (await request(service.url).get(`/api/ai/thread/${threadId}`)).body;
      const questions = Array.from(
        { length: options.questions },
        (_, turn) => `[${name} ${turn}] what does fetch-api do?`,
      );
      const problems = threadProblems(view, questions);
      if (problems.length > 0) {
        result.invalidThreads += 1;
        result.problems.push(`thread ${threadId} (${name}): ${problems.join('; ')}`);
      }
      const foreign = (view.messages as Array<{ content: string }>).filter((message) =>
        names.some((other) => other !== name && message.content.includes(`[${other} `)),
      );
      if (foreign.length > 0) {
        result.contaminatedThreads += 1;
        result.problems.push(`thread ${threadId} (${name}) holds ${foreign.length} message(s) of another conversation`);
      }
    }
    return result;
  } finally {
    await service.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
