import { performance } from 'node:perf_hooks';
import request from 'supertest';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { startTestApp } from '../test/support/test-app';
import { threadProblems } from './thread-validity';

/** Silence allowed between two upstream events in this scenario (LLM_STREAM_IDLE_TIMEOUT_MS; 90 s by default). */
export const FAULT_IDLE_TIMEOUT_MS = 1_000;
/** Retry-After the overloaded upstream asks for, in seconds (honoured up to 10 s). */
const RETRY_AFTER_S = 1;
/** AI_MAX_RETRIES of the scenario (the default): retryable errors before the first token are tried this many more times. */
const MAX_RETRIES = 2;
const GRAPH = 'nba-workflow';
/** Between two upstream events of the mid-stream faults: the first tokens reach the client before the fault. */
const MID_STREAM_DELAY_MS = 10;
const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>\n';

export interface UpstreamFault {
  name: string;
  provider: 'openai' | 'anthropic';
  /** The upstream answers of the faulty request (one per attempt when it is retried). */
  turns: ScriptedTurn[];
  /** The bound this fault's ai:error must arrive within, from the ai:chat. */
  boundMs: number;
}

/** Pre-token faults are retried MAX_RETRIES times: the bound covers every attempt and the waits between them. */
const BACKOFF_ALLOWANCE_MS = 1_500 + 1_000;

/** The upstream faults, each on the wire of a real provider. */
export function upstreamFaults(): UpstreamFault[] {
  const retried = (turn: ScriptedTurn) => Array.from({ length: MAX_RETRIES + 1 }, () => structuredClone(turn));
  return [
    {
      name: 'disconnect mid-stream',
      provider: 'openai',
      turns: [{ text: 'The fetch-api node calls the stats', delayMs: MID_STREAM_DELAY_MS, disconnectAfterChunks: 4 }],
      boundMs: 1_000,
    },
    {
      name: 'disconnect mid-stream',
      provider: 'anthropic',
      turns: [{ text: 'The fetch-api node calls the stats', delayMs: MID_STREAM_DELAY_MS, disconnectAfterChunks: 5 }],
      boundMs: 1_000,
    },
    {
      name: 'garbage SSE mid-stream',
      provider: 'openai',
      turns: [
        {
          text: 'The fetch-api node calls the stats',
          delayMs: MID_STREAM_DELAY_MS,
          corruptAfterChunks: {
            chunks: 4,
            data: 'data: {"choices":[{"delta":{"content":"trunc\n\ndata: \u0000\u0007<<garbage>>\n\n',
          },
        },
      ],
      boundMs: 1_000,
    },
    {
      name: 'garbage SSE mid-stream',
      provider: 'anthropic',
      turns: [
        {
          text: 'The fetch-api node calls the stats',
          delayMs: MID_STREAM_DELAY_MS,
          corruptAfterChunks: {
            chunks: 5,
            data: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{\n\n',
          },
        },
      ],
      boundMs: 1_000,
    },
    {
      name: 'HTML error page with status 200',
      provider: 'openai',
      turns: retried({
        raw: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, chunks: [HTML_PAGE] },
      }),
      boundMs: BACKOFF_ALLOWANCE_MS,
    },
    {
      name: 'HTML error page with status 200',
      provider: 'anthropic',
      turns: retried({
        raw: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, chunks: [HTML_PAGE] },
      }),
      boundMs: BACKOFF_ALLOWANCE_MS,
    },
    {
      name: 'stream stalls (idle timeout)',
      provider: 'openai',
      turns: [{ text: 'The fetch-api node calls the stats', delayMs: MID_STREAM_DELAY_MS, hangAfterChunks: 4 }],
      boundMs: FAULT_IDLE_TIMEOUT_MS + 1_000,
    },
    {
      name: 'stream stalls (idle timeout)',
      provider: 'anthropic',
      turns: [{ text: 'The fetch-api node calls the stats', delayMs: MID_STREAM_DELAY_MS, hangAfterChunks: 5 }],
      boundMs: FAULT_IDLE_TIMEOUT_MS + 1_000,
    },
    {
      name: '529 overloaded with Retry-After',
      provider: 'anthropic',
      turns: retried({
        error: {
          status: 529,
          type: 'overloaded_error',
          message: 'Overloaded',
          headers: { 'retry-after': String(RETRY_AFTER_S) },
        },
      }),
      boundMs: MAX_RETRIES * RETRY_AFTER_S * 1_000 + 1_000,
    },
    {
      name: '529 overloaded with Retry-After',
      provider: 'openai',
      turns: retried({
        error: { status: 529, message: 'Overloaded', headers: { 'retry-after': String(RETRY_AFTER_S) } },
      }),
      boundMs: MAX_RETRIES * RETRY_AFTER_S * 1_000 + 1_000,
    },
    {
      name: '503 with Retry-After',
      provider: 'openai',
      turns: retried({
        error: { status: 503, message: 'Service Unavailable', headers: { 'retry-after': String(RETRY_AFTER_S) } },
      }),
      boundMs: MAX_RETRIES * RETRY_AFTER_S * 1_000 + 1_000,
    },
    {
      name: 'tool call whose arguments never close',
      provider: 'openai',
      // role + 3 text deltas + the call's opening + 3 argument fragments, then the stream ends: no closing brace, no finish reason.
      turns: [
        {
          text: 'Let me look.',
          toolCalls: [{ name: 'read_node_detail', arguments: '{"nodeKey": "fetch-api', fragments: 3 }],
          endAfterChunks: 8,
        },
      ],
      boundMs: 1_000,
    },
    {
      name: 'tool call whose arguments never close, stream stalls',
      provider: 'openai',
      turns: [
        {
          text: 'Let me look.',
          toolCalls: [{ name: 'read_node_detail', arguments: '{"nodeKey": "fetch-api', fragments: 3 }],
          hangAfterChunks: 8,
        },
      ],
      boundMs: FAULT_IDLE_TIMEOUT_MS + 1_000,
    },
  ];
}

export interface UpstreamFaultOutcome {
  name: string;
  provider: string;
  /** The ai:error code, or what came instead. */
  code: string;
  retryable: boolean | null;
  /** ai:chat emitted → ai:error received, ms. */
  msToError: number;
  boundMs: number;
  withinBound: boolean;
  /** threadProblems() of the thread after the fault (empty: valid). */
  threadProblems: string[];
  /** The next message on the same thread was answered and left the thread valid. */
  resumed: boolean;
}

export interface UpstreamFaultsResult {
  outcomes: UpstreamFaultOutcome[];
  /** Faults whose ai:error did not come within its bound, was `internal`, left the thread invalid, or whose thread did not resume. */
  failures: number;
}

/**
 * Each fault of upstreamFaults() mid-conversation on the real app (Socket.IO, the real SDKs against
 * the scripted server), `repeat` times: the client must get ai:error within the fault's bound, the
 * thread must stay valid (threadProblems) and a next message on it must be answered.
 */
export async function runUpstreamFaultsScenario(options: { repeat?: number } = {}): Promise<UpstreamFaultsResult> {
  const repeat = options.repeat ?? 1;
  const outcomes: UpstreamFaultOutcome[] = [];
  for (const provider of ['openai', 'anthropic'] as const) {
    const faults = upstreamFaults().filter((fault) => fault.provider === provider);
    const server = await ScriptedLlmServer.start();
    const app = await startTestApp({
      ...server.providerEnv(provider),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      AI_MAX_RETRIES: String(MAX_RETRIES),
      LLM_STREAM_IDLE_TIMEOUT_MS: String(FAULT_IDLE_TIMEOUT_MS),
    });
    const client = await AiSocketClient.connect(app.url);
    let id = 0;
    try {
      for (let round = 0; round < repeat; round += 1) {
        for (const fault of faults) {
          server.reset();
          server.enqueue(...structuredClone(fault.turns));
          const question = `What does fetch-api do? (${fault.name}, ${round})`;
          const started = performance.now();
          const failed = await client.chat({ _id: ++id, graphKey: GRAPH, message: question }, fault.boundMs + 30_000);
          const msToError = performance.now() - started;
          const threadId = (
            failed.events.find((event) => event.event === 'ai:thread')?.payload as { threadId?: string } | undefined
          )?.threadId;
          const outcome: UpstreamFaultOutcome = {
            name: fault.name,
            provider,
            code: failed.error?.code ?? (failed.complete ? 'ai:complete' : 'nothing'),
            retryable: failed.error?.retryable ?? null,
            msToError,
            boundMs: fault.boundMs,
            withinBound: failed.error !== undefined && msToError <= fault.boundMs,
            threadProblems: threadId ? [] : ['no ai:thread'],
            resumed: false,
          };
          if (threadId) {
            outcome.threadProblems = threadProblems((await request(app.url).get(`/api/ai/thread/${threadId}`)).body, [
              question,
            ]);
            server.reset();
            server.enqueue({ text: 'fetch-api calls the NBA stats API.' });
            const next = await client.chat(
              { _id: ++id, graphKey: GRAPH, threadId, message: `And now? (${round})` },
              30_000,
            );
            const after = (await request(app.url).get(`/api/ai/thread/${threadId}`)).body;
            outcome.resumed =
              next.complete?.fullText === 'fetch-api calls the NBA stats API.' &&
              threadProblems(after, [question, `And now? (${round})`]).length === 0;
          }
          outcomes.push(outcome);
        }
      }
    } finally {
      client.close();
      await app.close();
      await server.close();
    }
  }
  const failed = (outcome: UpstreamFaultOutcome) =>
    !outcome.withinBound || outcome.code === 'internal' || outcome.threadProblems.length > 0 || !outcome.resumed;
  return { outcomes, failures: outcomes.filter(failed).length };
}
