import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RecordingSink } from '../support/agent.harness';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { AppConfigModule } from '../../src/config/app-config.module';
import { loadAppConfig } from '../../src/config/load-app-config';
import { ProviderRegistry } from '../../src/config/provider-registry';
import { configureLogging } from '../../src/observability/logger';
import { PersistenceModule } from '../../src/persistence/persistence.module';
import { AiModule } from '../../src/ai/ai.module';
import { AskQuestion } from '../../src/ai/use-cases/ask-question.use-case';

describe(AiModule.name, () => {
  it('wires the use cases from the real modules (SQLite store with the demo graph, provider from the environment)', async () => {
    configureLogging({ level: 'error' });
    const server = await ScriptedLlmServer.start();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ai-module-'));
    const config = loadAppConfig({
      NODE_ENV: 'test',
      AUTH_MODE: 'none',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
      ...server.providerEnv('deepseek'),
    });
    const moduleRef = await Test.createTestingModule({
      imports: [AppConfigModule.forRoot(config), PersistenceModule.forRoot(config), AiModule],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      server.enqueue({ text: 'Wired.' });
      const sink = new RecordingSink();
      const result = await app
        .get(AskQuestion)
        .execute(
          { userId: 'u', workspace: 'default', role: 'admin' },
          { graphKey: 'nba-workflow', message: 'hello' },
          sink,
          new AbortController().signal,
        );
      expect(result).toMatchObject({ type: 'message', message: 'Wired.' });
      expect(server.requests[0].path).toBe('/v1/chat/completions');
      expect(server.requests[0].body.model).toBe(ProviderRegistry.load().get('deepseek')?.defaultModel);
    } finally {
      await app.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
