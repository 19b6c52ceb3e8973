import request from 'supertest';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';

/** The text of every user turn the upstream request carried, in order (OpenAI strings, Anthropic text blocks). */
/** What the user wrote: on Anthropic, the per-message context and thread events are text of the user turn too (docs/llm-providers.md). */
function userTexts(body: { messages: Array<{ role: string; content: unknown }> }): string[] {
  const written = (text: string) => !text.startsWith('[SYSTEM]') && !text.startsWith('[RAG context');
  return body.messages
    .filter((message) => message.role === 'user')
    .flatMap((message) =>
      typeof message.content === 'string'
        ? [message.content]
        : (message.content as Array<{ type: string; text?: string }>)
            .filter((block) => block.type === 'text')
            .map((block) => block.text ?? ''),
    )
    .filter(written);
}

/**
 * An `ai:chat` stopped before its run reaches the model (ai:interrupt right behind it, a disconnect)
 * keeps its thread with the user's message alone: the message is never lost, the thread is valid
 * and the next message continues it (docs/protocol-notes.md, "A request stopped before it starts").
 */
describe.each(['openai', 'anthropic'])('A socket run stopped before it starts (%s)', (provider) => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let client: AiSocketClient;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv(provider),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    client = await AiSocketClient.connect(app.url);
  });
  afterAll(async () => {
    client.close();
    await app.close();
    await server.close();
  });

  it('keeps the thread with the user message alone; the next message continues it with both questions', async () => {
    client.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'What does fetch-api do?' });
    client.interrupt(1);
    const stopped = await client.terminalOf(1);
    // The question was stored before the stop: with its DATA_ADDED event (docs/protocol.md §8.3).
    expect(stopped.names).toEqual(['ai:thread', 'ai:event', 'ai:complete']);
    expect(stopped.complete).toMatchObject({ aborted: true, fullText: '' });
    expect(server.requests).toHaveLength(0);
    const threadId = stopped.complete!.threadId;

    const kept = (await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200)).body;
    expect(kept.messages).toEqual([
      { id: expect.any(String), role: 'user', content: 'What does fetch-api do?', createdTime: expect.any(Number) },
      expect.objectContaining({ role: 'event', event: expect.objectContaining({ type: 'DATA_ADDED' }) }),
    ]);
    const listed = (await request(app.url).post('/api/ai/threads').send({ graphKey: GRAPH }).expect(200)).body;
    expect(listed).toContainEqual(
      expect.objectContaining({ threadId, title: 'What does fetch-api do?', messageCount: 1, pendingInterrupt: false }),
    );

    server.enqueue({ text: 'fetch-api calls the stats API; error-handler logs its failures.' });
    const next = await client.chat({ _id: 2, graphKey: GRAPH, threadId, message: 'And error-handler?' });
    expect(next.complete?.fullText).toBe('fetch-api calls the stats API; error-handler logs its failures.');
    expect(userTexts(server.requests[0].body)).toEqual(['What does fetch-api do?', 'And error-handler?']);
    const after = (await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200)).body;
    expect(after.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'event',
      'user',
      'event',
      'assistant',
    ]);
  });
});
