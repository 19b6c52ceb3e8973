import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as path from 'node:path';
import request from 'supertest';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../..');
const GRAPH = 'nba-workflow';
const readFetchApi = { id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } };
const proposeLogNode = {
  id: 'call_create',
  name: 'propose_create_node',
  arguments: {
    nodeKey: 'log-errors',
    typeKey: 'log-node',
    sheet: '0',
    posX: 820,
    posY: 300,
    reason: 'Log the fetch errors',
  },
};

/** The terminal chat (client/src/cli/ai-chat.cli.ts, compiled on the fly) in a child process, driven through its stdin. */
class ChatProcess {
  output = '';
  private readonly exited: Promise<number | null>;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (text: string) => (this.output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (this.output += text));
    this.exited = new Promise((resolve) => child.once('exit', resolve));
  }

  static start(args: string[]): ChatProcess {
    const entry = path.join(ROOT, 'client/src/cli/ai-chat.cli.ts');
    return new ChatProcess(
      spawn(process.execPath, ['--require', path.join(ROOT, 'test/support/swc-register.js'), entry, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
      }),
    );
  }

  /** Types a line. */
  type(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Resolves once the output (since `from`) matches. */
  async waitFor(pattern: RegExp, from = 0, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output.slice(from))) {
      if (Date.now() > deadline) throw new Error(`ai:chat never printed ${pattern}; it printed:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.output.slice(from);
  }

  /** Ends the input (as Ctrl+D) and resolves with the exit code. */
  end(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

describe('npm run ai:chat (terminal chat, end to end)', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const processes: ChatProcess[] = [];
  const chat = (...args: string[]) => {
    const started = ChatProcess.start(['--url', app.url, ...args]);
    processes.push(started);
    return started;
  };

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({ ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', AI_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());
  afterEach(() => {
    for (const started of processes.splice(0)) started.kill();
  });

  it('streams an answer with its tool call, shows a proposal readably, applies it on "y", and leaves at the end of input', async () => {
    server.enqueue(
      { text: 'Let me read fetch-api. ', chunkSize: 4, toolCalls: [readFetchApi] },
      { text: 'It fetches the active NBA players.', chunkSize: 4 },
      { text: 'I propose a log node.', toolCalls: [proposeLogNode] },
      { text: 'Done: log-errors exists.' },
    );
    const cli = chat('--graph', GRAPH);
    await cli.waitFor(/you › $/);
    expect(cli.output).toContain('NBA stats workflow: 9 nodes');

    let mark = cli.output.length;
    cli.type('What does fetch-api do?');
    const answer = await cli.waitFor(/you › $/, mark);
    // The question's DATA_ADDED event (docs/protocol.md §8.3) comes before the answer.
    expect(answer).toMatch(
      /ai {2}›\s+\[DATA_ADDED\] Loaded \d+ nodes and \d+ edges into the context \(~[\d,]+ tokens\)\nLet me read fetch-api\. \n {2}⚙ read_node_detail\nIt fetches the active NBA players\.\n\([\d,]+ tokens/,
    );

    mark = cli.output.length;
    cli.type('Add a node that logs its errors');
    const proposal = await cli.waitFor(/Approve\? \[y\]es \/ \[n\]o \/ \[f\]eedback: $/, mark);
    expect(proposal).toContain('The assistant proposes: Create a log-node node');
    expect(proposal).toContain('Creates 1 node on sheet main');
    expect(proposal).toContain('Why: Log the fetch errors');
    expect(proposal).toContain('+ New log-node node "log-errors"');
    expect(proposal).toContain('position: (820, 300)');

    mark = cli.output.length;
    cli.type('y');
    const applied = await cli.waitFor(/you › $/, mark);
    expect(applied).toContain('⚙ propose_create_node');
    expect(applied).toContain('↳ approved');
    expect(applied).toContain('Done: log-errors exists.');
    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    expect(graph.body.nodes.map((node: { _key: string }) => node._key)).toContain('log-errors');

    expect(await cli.end()).toBe(0);
  });

  it('rejects a proposal with feedback, which reaches the model', async () => {
    server.enqueue(
      {
        text: 'I propose a log node.',
        toolCalls: [{ ...proposeLogNode, arguments: { ...proposeLogNode.arguments, nodeKey: 'log-other' } }],
      },
      { text: 'Understood, no node then.' },
    );
    const cli = chat('--graph', GRAPH);
    await cli.waitFor(/you › $/);
    cli.type('Add a log node');
    await cli.waitFor(/\[f\]eedback: $/);
    cli.type('f');
    await cli.waitFor(/Feedback: $/);
    cli.type('not now, the API is being replaced');
    await cli.waitFor(/Approve with this feedback\? \[y\/n\]: $/);
    cli.type('n');
    await cli.waitFor(/Understood, no node then\.[\s\S]*you › $/);

    const toolResult = (server.requests[1].body.messages as Array<{ tool_call_id?: string; content: string }>).find(
      (message) => message.tool_call_id === 'call_create',
    );
    expect(JSON.parse(toolResult!.content)).toMatchObject({
      status: 'rejected',
      feedback: 'not now, the API is being replaced',
    });
    await cli.end();
  });

  it('offers Retry on a retryable failure, and "y" sends the question again', async () => {
    server.enqueue({ error: { status: 503 } }, { text: 'Second time lucky.' });
    const cli = chat('--graph', GRAPH);
    await cli.waitFor(/you › $/);
    cli.type('Summarize the graph');
    const failed = await cli.waitFor(/Retry\? \[y\/n\]: $/);
    expect(failed).toMatch(/✗ .+ \(server_error\)/);
    cli.type('y');
    await cli.waitFor(/Second time lucky\.[\s\S]*you › $/);
    await cli.end();
  });

  it('says clearly when the graph does not exist, and exits 1', async () => {
    const cli = chat('--graph', 'no-such-graph');
    expect(await cli.end()).toBe(1);
    expect(cli.output).toContain('ai:chat: Graph "no-such-graph" does not exist');
  });
});
