import request from 'supertest';
import { configureLogging } from '../src/observability/logger';
import { RecordedRequest, ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { startTestApp } from '../test/support/test-app';
import { numberArgument } from './bench-arguments';
import { formatTable } from './bench-table';
import { benchModel, benchQuestion, isSummaryRequest } from './conversation-script';

/**
 * How much of each request providers can serve from their prompt cache: a `--turns`-turn thread
 * (default 10) on the demo graph, through the real app, once
 * against the scripted OpenAI endpoint and once against the scripted Anthropic one, both counting
 * as the real services do (PromptCacheSimulator: OpenAI's automatic prefix cache in 128-token blocks
 * from 1,024 tokens; Anthropic's cache_control breakpoints with its 20-block lookback).
 *  - prefix share: for each request after the first, the part of its prompt (tools, system, messages,
 *    as the provider reads them) that is a byte-identical prefix of the previous request's; mean and
 *    minimum over the thread (target: at least 90 %);
 *  - cached share: the cached tokens the endpoint reported over the prompt tokens, requests 2 to N.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/prompt-prefix.bench.js [--turns 10]
 */

const GRAPH = 'nba-workflow';
export const PREFIX_PROVIDERS = ['openai', 'anthropic'] as const;

export interface PromptPrefixRow {
  provider: (typeof PREFIX_PROVIDERS)[number];
  turns: number;
  /** Per request after the first: shared prefix / prompt, in characters. */
  prefixShares: number[];
  meanPrefixShare: number;
  minPrefixShare: number;
  cachedTokens: number;
  promptTokens: number;
  cachedShare: number;
}

export interface PromptPrefixResult {
  rows: PromptPrefixRow[];
}

async function measure(provider: (typeof PREFIX_PROVIDERS)[number], turns: number): Promise<PromptPrefixRow> {
  const server = await ScriptedLlmServer.start({ promptCache: true });
  server.enqueue(...Array.from({ length: turns * 4 }, () => benchModel));
  const app = await startTestApp({
    ...server.providerEnv(provider),
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
  });
  try {
    let threadId = '';
    for (let turn = 1; turn <= turns; turn += 1) {
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: benchQuestion(turn), ...(threadId ? { threadId } : {}) });
      if (answer.status !== 200)
        throw new Error(`${provider} turn ${turn}: ${answer.status} ${JSON.stringify(answer.body)}`);
      threadId ||= answer.body.threadId;
    }
    const chats = server.requests
      .filter((recorded: RecordedRequest) => recorded.endpoint !== 'openai.embeddings' && !isSummaryRequest(recorded))
      .slice(1);
    const prefixShares = chats.map((recorded) =>
      recorded.prompt ? recorded.prompt.sharedPrefixChars / recorded.prompt.chars : 0,
    );
    const cachedTokens = chats.reduce((sum, recorded) => sum + (recorded.prompt?.cachedTokens ?? 0), 0);
    const promptTokens = chats.reduce((sum, recorded) => sum + (recorded.prompt?.tokens ?? 0), 0);
    return {
      provider,
      turns,
      prefixShares,
      meanPrefixShare: prefixShares.reduce((sum, share) => sum + share, 0) / Math.max(1, prefixShares.length),
      minPrefixShare: Math.min(...prefixShares),
      cachedTokens,
      promptTokens,
      cachedShare: promptTokens === 0 ? 0 : cachedTokens / promptTokens,
    };
  } finally {
    await app.close();
    await server.close();
  }
}

export async function runPromptPrefixBench(options: { turns?: number } = {}): Promise<PromptPrefixResult> {
  configureLogging({ level: 'error' });
  const rows: PromptPrefixRow[] = [];
  for (const provider of PREFIX_PROVIDERS) rows.push(await measure(provider, options.turns ?? 10));
  return { rows };
}

export function promptPrefixTable(result: PromptPrefixResult): string[] {
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  return formatTable(
    ['endpoint', 'turns', 'prefix share, mean', 'min', 'cached tokens / prompt tokens', 'per request'],
    result.rows.map((row) => [
      row.provider,
      String(row.turns),
      percent(row.meanPrefixShare),
      percent(row.minPrefixShare),
      `${row.cachedTokens.toLocaleString('en-US')} / ${row.promptTokens.toLocaleString('en-US')} = ${percent(row.cachedShare)}`,
      row.prefixShares.map((share) => (share * 100).toFixed(0)).join(' '),
    ]),
  );
}

if (require.main === module) {
  runPromptPrefixBench({ turns: numberArgument('turns') })
    .then((result) => {
      for (const line of promptPrefixTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
