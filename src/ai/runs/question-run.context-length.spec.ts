import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import { RecordedRequest, ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { promptTokens } from '../../../test/support/scripted-llm/prompt-cache';
import { exchangeOf } from '../../../test/support/thread-messages';
import { Principal } from '../../auth/principal';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { QuestionRun } from './question.run';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };
const signal = () => new AbortController().signal;
/** The model's context window as the scripted server counts tokens (4 characters each): the full request is over it, half of it fits. */
const CONTEXT_WINDOW = 20_000;

const tokensOf = (request: RecordedRequest) => promptTokens('openai.chat', request.body);
const contextOf = (request: RecordedRequest): string =>
  request.body.messages.find(
    (message: { role: string; content: string }) =>
      message.role === 'system' && message.content.startsWith('[RAG context'),
  )?.content ?? '';
const userTurns = (request: RecordedRequest) =>
  request.body.messages.filter((message: { role: string }) => message.role === 'user').length;

/**
 * Context-length recovery: the scripted server refuses, with OpenAI's own
 * `context_length_exceeded`, any prompt over its context window; the run retries once with fewer
 * retrieved nodes, shorter texts and half the history, then answers — or fails with context_length.
 */
describe(`${QuestionRun.name} (context-length recovery on the scripted server)`, () => {
  let server: ScriptedLlmServer;
  let harness: AgentHarness;
  let logs: LogEntry[];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ contextLength: CONTEXT_WINDOW });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    harness = await AgentHarness.create({
      env: { ...server.providerEnv('openai'), AI_HISTORY_MAX_TOKENS: '40000', AI_CONFIRM_ABOVE_TOKENS: '0' },
    });
    logs = [];
    configureLogging({ level: 'info' });
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(async () => {
    resetLogSink();
    await harness.close();
  });

  /** A thread whose earlier turns hold `turns` long answers (~10,000 characters each). */
  async function longThread(turns: number): Promise<string> {
    server.enqueue({ text: 'Hello.' });
    const first = await harness.agent.chat(editor, { graphKey: GRAPH, message: 'Hi' }, new RecordingSink(), signal());
    let thread = await harness.threadService.load(editor, first.threadId);
    for (let turn = 0; turn < turns; turn += 1) {
      thread = await harness.threadService.commit(thread, {
        append: exchangeOf(
          `Question ${turn} about fetch-api`,
          `Answer ${turn}: ${'the fetch-api node calls the stats API. '.repeat(250)}`,
        ),
      });
    }
    server.reset();
    return first.threadId;
  }

  it('retries once with a smaller context (fewer nodes, shorter texts, half the history) and answers', async () => {
    const threadId = await longThread(6);
    server.enqueue({ text: 'fetch-api calls the NBA stats API.' });
    const sink = new RecordingSink();
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'What does fetch-api do?', threadId },
      sink,
      signal(),
    );

    expect(result.message).toBe('fetch-api calls the NBA stats API.');
    expect(server.requests).toHaveLength(2);
    const [refused, retried] = server.requests;
    expect(tokensOf(refused)).toBeGreaterThan(CONTEXT_WINDOW);
    expect(tokensOf(retried)).toBeLessThanOrEqual(CONTEXT_WINDOW);
    expect(contextOf(retried).length).toBeLessThan(contextOf(refused).length);
    expect(userTurns(retried)).toBeLessThan(userTurns(refused));
    expect(retried.body.messages.findLast((message: { role: string }) => message.role === 'user')).toEqual({
      role: 'user',
      content: 'What does fetch-api do?',
    });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', event: 'context_length_retry', threadId }));
    expect(result.usage.llmCalls).toBe(2);

    // Nothing of the smaller context is stored: the thread keeps the context it was first given.
    const stored = await harness.threadService.load(editor, threadId);
    expect(stored.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'fetch-api calls the NBA stats API.' });
    expect(stored.messages.filter((message) => message.kind === 'rag_context').at(-1)?.content).toBe(
      contextOf(refused),
    );
  });

  it('assembles the retry like every request: the three stable prompt levels first, unchanged, then the history', async () => {
    const threadId = await longThread(6);
    server.enqueue({ text: 'Done.' });
    await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'What does fetch-api do?', threadId },
      new RecordingSink(),
      signal(),
    );

    const [refused, retried] = server.requests;
    const levels = (request: RecordedRequest) => request.body.messages.slice(0, 3);
    expect(levels(refused).map((message: { role: string }) => message.role)).toEqual(['system', 'system', 'system']);
    expect(levels(retried)).toEqual(levels(refused));
    // The stored startup prompt is not sent a second time.
    const levelTexts = new Set(levels(refused).map((level: { content: string }) => level.content));
    expect(
      retried.body.messages.filter(
        (message: { role: string; content: string }) => message.role === 'system' && levelTexts.has(message.content),
      ),
    ).toHaveLength(3);
  });

  it('fails with context_length when even the smaller context does not fit, leaving the thread valid with the question', async () => {
    // A history budget so large that half of it is still over the window.
    await harness.close();
    harness = await AgentHarness.create({
      env: { ...server.providerEnv('openai'), AI_HISTORY_MAX_TOKENS: '80000', AI_CONFIRM_ABOVE_TOKENS: '0' },
    });
    const threadId = await longThread(14);
    const sink = new RecordingSink();
    const failure = await harness.agent
      .chat(editor, { graphKey: GRAPH, message: 'And now?', threadId }, sink, signal())
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'context_length', statusCode: 422 });
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every((request) => tokensOf(request) > CONTEXT_WINDOW)).toBe(true);
    const stored = await harness.threadService.load(editor, threadId);
    expect(stored.messages.filter((message) => message.role === 'user').at(-1)?.content).toBe('And now?');
    expect(logs).toContainEqual(expect.objectContaining({ event: 'llm_error', code: 'context_length', threadId }));
  });
});
