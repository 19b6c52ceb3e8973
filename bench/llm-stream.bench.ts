import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { performance } from 'node:perf_hooks';
import { configureLogging } from '../src/observability/logger';
import { AnthropicProvider } from '../src/providers/anthropic.provider';
import { LlmProvider } from '../src/providers/llm-provider';
import { OpenAiCompatibleProvider } from '../src/providers/openai-compatible.provider';
import { RetryingLlmProvider } from '../src/providers/retrying-llm.provider';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { numberArgument } from './bench-arguments';
import { median } from './bench-statistics';

/**
 * Chunks per second through LlmProvider.stream() (the real SDK + our assembler + the retry
 * wrapper, as the factory builds it) against raw SSE parsing of the same stream (fetch, split on
 * blank lines, JSON.parse each event): same scripted server, same number of chunks, same run,
 * rounds rotated so all see the same machine state. A third column iterates the bare SDK stream,
 * to tell what the SDK costs from what our adapter adds on top of it.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/llm-stream.bench.js [--chunks 20000] [--rounds 7]
 */

const CHUNKS = numberArgument('chunks') ?? 20_000;
const ROUNDS = numberArgument('rounds') ?? 7;
const CHUNK_SIZE = 4;
const TEXT = 'abcd'.repeat(CHUNKS);

type Wire = 'openai' | 'anthropic';

async function viaProvider(provider: LlmProvider): Promise<number> {
  let tokens = 0;
  for await (const chunk of provider.stream([{ role: 'user', content: 'bench' }])) if (chunk.type === 'token') tokens++;
  return tokens;
}

/** The floor: read the body, split events, parse JSON, count text deltas. */
async function viaRawSse(server: ScriptedLlmServer, wire: Wire): Promise<number> {
  const url = wire === 'openai' ? `${server.openAiBaseUrl}/chat/completions` : `${server.url}/v1/messages`;
  const body =
    wire === 'openai'
      ? {
          model: 'bench',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'bench' }],
        }
      : { model: 'bench', stream: true, max_tokens: 4096, messages: [{ role: 'user', content: 'bench' }] };
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let tokens = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let boundary: number;
    while ((boundary = buffer.indexOf('\n\n')) !== -1) {
      const event = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const dataLine = event.split('\n').find((line) => line.startsWith('data: '));
      if (!dataLine || dataLine === 'data: [DONE]') continue;
      const data = JSON.parse(dataLine.slice(6));
      if (wire === 'openai' ? data.choices?.[0]?.delta?.content : data.delta?.type === 'text_delta') tokens++;
    }
  }
  return tokens;
}

/** The SDK's own stream, without our adapter. */
async function viaSdk(server: ScriptedLlmServer, wire: Wire): Promise<number> {
  let tokens = 0;
  if (wire === 'openai') {
    const client = new OpenAI({ apiKey: 'bench', baseURL: server.openAiBaseUrl, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'bench',
      stream: true,
      messages: [{ role: 'user', content: 'bench' }],
    });
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) tokens++;
  } else {
    const client = new Anthropic({ apiKey: 'bench', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
    const stream = await client.messages.create({
      model: 'bench',
      max_tokens: 4096,
      stream: true,
      messages: [{ role: 'user', content: 'bench' }],
    });
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') tokens++;
  }
  return tokens;
}

async function timed(run: () => Promise<number>): Promise<number> {
  const startedAt = performance.now();
  const tokens = await run();
  const seconds = (performance.now() - startedAt) / 1000;
  if (tokens !== CHUNKS) throw new Error(`expected ${CHUNKS} chunks, got ${tokens}`);
  return tokens / seconds;
}

async function measure(
  server: ScriptedLlmServer,
  wire: Wire,
  provider: LlmProvider,
): Promise<{ stream: number; raw: number; sdk: number }> {
  const runners = {
    stream: () => viaProvider(provider),
    raw: () => viaRawSse(server, wire),
    sdk: () => viaSdk(server, wire),
  };
  const names = Object.keys(runners) as Array<keyof typeof runners>;
  const rates: Record<keyof typeof runners, number[]> = { stream: [], raw: [], sdk: [] };
  const turn = { text: TEXT, chunkSize: CHUNK_SIZE, usage: { prompt: 10, completion: CHUNKS } };
  // Warm-up (JIT, connection pool), not measured.
  for (const name of names) {
    server.enqueue(turn);
    await runners[name]();
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length];
      server.enqueue(turn);
      rates[name].push(await timed(runners[name]));
    }
  }
  return { stream: median(rates.stream), raw: median(rates.raw), sdk: median(rates.sdk) };
}

async function main(): Promise<void> {
  configureLogging({ level: 'error', aiDebug: false });
  const server = await ScriptedLlmServer.start();
  try {
    const openai = new RetryingLlmProvider(
      new OpenAiCompatibleProvider({
        providerName: 'openai',
        baseURL: server.openAiBaseUrl,
        apiKey: 'bench',
        model: 'bench',
      }),
      { maxRetries: 0 },
    );
    const anthropic = new RetryingLlmProvider(
      new AnthropicProvider({ baseURL: server.anthropicBaseUrl, apiKey: 'bench', model: 'bench' }),
      { maxRetries: 0 },
    );
    console.log(
      `LLM stream throughput: ${CHUNKS} text chunks per stream, median of ${ROUNDS} alternated rounds, node ${process.version}`,
    );
    console.log('wire       stream() chunks/s   raw SSE chunks/s   stream/raw   bare SDK chunks/s   stream/SDK');
    const format = (value: number) => Math.round(value).toLocaleString('en-US');
    for (const [wire, provider] of [
      ['openai', openai],
      ['anthropic', anthropic],
    ] as const) {
      const { stream, raw, sdk } = await measure(server, wire, provider);
      console.log(
        `${wire.padEnd(10)} ${format(stream).padStart(17)}   ${format(raw).padStart(16)}   ${(stream / raw).toFixed(2).padStart(10)}` +
          `   ${format(sdk).padStart(17)}   ${(stream / sdk).toFixed(2).padStart(10)}`,
      );
    }
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
