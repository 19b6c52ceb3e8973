import { AiGateway } from '../../src/ai/socket/ai.gateway';
import { LogEntry } from '../../src/observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../src/observability/logger';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

describe(`${AiGateway.name} debug events (AI_DEBUG)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const entries: LogEntry[] = [];

  beforeAll(async () => {
    setLogSink((entry) => entries.push(entry));
    server = await ScriptedLlmServer.start();
    app = await startTestApp({ ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', AI_DEBUG: 'true' });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
    configureLogging({ aiDebug: false });
    resetLogSink();
  });

  it('ws_chat names the thread (null for the message that starts one), as the debug events table asks', async () => {
    server.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const client = await AiSocketClient.connect(app.url);
    try {
      const first = await client.chat({ _id: 1, graphKey: 'nba-workflow', message: 'What does fetch-api do?' });
      const threadId = first.complete!.threadId;
      await client.chat({ _id: 2, graphKey: 'nba-workflow', message: 'And filter-active?', threadId });

      const wsChat = entries.filter((entry) => entry.event === 'ws_chat');
      expect(wsChat.map((entry) => entry.threadId)).toEqual([null, threadId]);
      expect(wsChat.map((entry) => entry.requestId)).toEqual([1, 2]);
    } finally {
      client.close();
    }
  });
});
