import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { AppConfigModule } from '../../src/config/app-config.module';
import { loadAppConfig } from '../../src/config/load-app-config';
import { setLogSink, resetLogSink } from '../../src/observability/logger';
import { PersistenceModule } from '../../src/persistence/persistence.module';
import { TokenTracker } from '../../src/providers/token.tracker';
import { EmbeddingProvider } from '../../src/embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../../src/embeddings/embedding-provider.token';
import { EmbeddingsModule } from '../../src/embeddings/embeddings.module';
import { LocalWordsEmbeddingProvider } from '../../src/embeddings/local-words-embedding.provider';

// Each boot gets a store of its own: the default DATA_DIR is the checkout's ./data, which may hold another version's file.
const dataDirs: string[] = [];

async function boot(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embeddings-module-'));
  dataDirs.push(dataDir);
  const config = loadAppConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, ...env });
  return Test.createTestingModule({
    imports: [AppConfigModule.forRoot(config), PersistenceModule.forRoot(config), EmbeddingsModule],
  }).compile();
}

describe(EmbeddingsModule.name, () => {
  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => {
    resetLogSink();
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });

  it('provides the local embedding when nothing is configured', async () => {
    const moduleRef = await boot({});
    expect(moduleRef.get<EmbeddingProvider>(EMBEDDING_PROVIDER)).toBeInstanceOf(LocalWordsEmbeddingProvider);
    await moduleRef.close();
  });

  it('provides null when EMBEDDING_PROVIDER=none', async () => {
    const moduleRef = await boot({ EMBEDDING_PROVIDER: 'none' });
    expect(moduleRef.get(EMBEDDING_PROVIDER)).toBeNull();
    await moduleRef.close();
  });

  it('records the OpenAI adapter’s usage in the TokenTracker', async () => {
    const server = await ScriptedLlmServer.start({ embeddingDimension: 1536 });
    try {
      const moduleRef = await boot({ OPENAI_API_KEY: 'sk-scripted-test', OPENAI_BASE_URL: server.openAiBaseUrl });
      const provider = moduleRef.get<EmbeddingProvider>(EMBEDDING_PROVIDER);
      expect(provider).toMatchObject({ modelName: 'text-embedding-3-small', dimension: 1536 });

      await provider.embed(['fetch the active players', 'sort them by points']);
      const tracker = moduleRef.get(TokenTracker);
      expect(tracker.getEntries()).toEqual([
        expect.objectContaining({
          kind: 'embedding',
          provider: 'openai',
          model: 'text-embedding-3-small',
          promptTokens: 11,
        }),
      ]);
      expect(tracker.getTotals().costUsd).toBeCloseTo((11 * 0.02) / 1_000_000, 12);
      await moduleRef.close();
    } finally {
      await server.close();
    }
  });
});
