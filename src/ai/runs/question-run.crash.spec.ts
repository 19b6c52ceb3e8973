import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import type { CrashRequest } from '../../../test/support/agent-crash.child';
import { ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { Principal } from '../../auth/principal';
import { QuestionRun } from './question.run';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };

/** Runs the crashing service process; resolves with the thread it worked on once it is dead. */
function runCrashingInstance(request: CrashRequest): Promise<{ threadId: string; signal: NodeJS.Signals | null }> {
  const child = fork(path.join(__dirname, '../../../test/support/agent-crash.child.ts'), [], {
    execArgv: ['--require', path.join(__dirname, '../../../test/support/swc-register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let threadId = '';
  child.on('message', (message: { threadId?: string }) => {
    if (message.threadId) threadId = message.threadId;
  });
  child.send(request);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (_code, signal) => resolve({ threadId, signal }));
  });
}

describe(`${QuestionRun.name} (crash mid-round)`, () => {
  let server: ScriptedLlmServer;
  let dataDir: string;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    dataDir = mkdtempSync(path.join(tmpdir(), 'chat-crash-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves a valid thread when the process dies after the LLM answered but before the round was committed', async () => {
    const env = { ...server.providerEnv('openai'), THREAD_LEASE_MS: '1000' };
    // Seed the store from this process, then let another process crash on it.
    await (await AgentHarness.create({ dataDir, env })).close({ keepData: true });
    server.enqueue({
      text: 'Let me read it.',
      toolCalls: [{ id: 'call_lost', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
    });

    const crash = await runCrashingInstance({
      dataDir,
      env,
      principal: editor,
      graphKey: GRAPH,
      message: 'What does fetch-api do?',
    });
    expect(crash.signal).toBe('SIGKILL');
    expect(crash.threadId).toMatch(/^ai_/);
    expect(server.requests).toHaveLength(1);

    const survivor = await AgentHarness.create({ dataDir, env });
    try {
      const stored = await survivor.threadService.load(editor, crash.threadId);
      expect(stored.messages.map((message) => message.kind ?? message.role)).toEqual([
        'system_prompt',
        'user',
        'rag_context',
        'event',
      ]);

      // The dead process's lease expires (THREAD_LEASE_MS); then the conversation goes on here.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      server.enqueue({ text: 'fetch-api calls the stats API.' });
      const sink = new RecordingSink();
      const result = await survivor.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'Are you there?', threadId: crash.threadId },
        sink,
        new AbortController().signal,
      );
      expect(result).toMatchObject({ type: 'message', message: 'fetch-api calls the stats API.' });

      const sent = server.requests[1].body.messages as Array<{ role: string; content: string; tool_calls?: unknown }>;
      expect(sent.map((message) => message.role)).toEqual([
        'system',
        'system',
        'system',
        'user',
        'system',
        'user',
        'system',
        'system',
      ]);
      expect(sent[3].content).toBe('What does fetch-api do?');
      expect(sent.some((message) => message.tool_calls)).toBe(false);
      const after = await survivor.threadService.load(editor, crash.threadId);
      expect(after.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'fetch-api calls the stats API.' });
    } finally {
      await survivor.close({ keepData: true });
    }
  }, 30000);
});
