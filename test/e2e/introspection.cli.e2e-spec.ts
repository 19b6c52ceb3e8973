import { SqliteAlwaysSendRepository } from '../../src/always-send/sqlite/sqlite-always-send.repository';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CliIo } from '../../src/cli/cli-context';
import { dumpContext } from '../../src/cli/dump-context.cli';
import { dumpPrompt } from '../../src/cli/dump-prompt.cli';
import { dumpTools } from '../../src/cli/dump-tools.cli';
import { resetLogSink, setLogSink } from '../../src/observability/logger';

class CapturedIo implements CliIo {
  out = '';
  err = '';
  readonly stdout = { write: (text: string) => (this.out += text) };
  readonly stderr = { write: (text: string) => (this.err += text) };
}

describe('Introspection commands (ai:dump-context, ai:dump-prompt, ai:dump-tools)', () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    setLogSink(() => undefined);
    dataDir = mkdtempSync(path.join(tmpdir(), 'introspection-cli-'));
    env = { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'error' };
  });
  afterAll(() => {
    resetLogSink();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('dump-context seeds an empty store and prints the context, its search mode and its TOON message', async () => {
    const io = new CapturedIo();
    expect(await dumpContext(['--graph', 'nba-workflow', 'which', 'players', 'are', 'kept?'], env, io)).toBe(0);
    expect(io.out).toContain('question: "which players are kept?"');
    expect(io.out).toContain('Search mode: hybrid (BM25 + local-words-v1-612 vectors');
    expect(io.out).toContain('=== GraphRAGContext (JSON) ===');
    expect(io.out).toContain('[RAG context for this question]\nRELEVANT NODES:');
    expect(io.out).toMatch(/\n {2}filter-active,filter \(Filter\),main,/);
    expect(io.out).toMatch(
      /Tokens \(o200k\): context message \d+; the same nodes and edges as JSON \d+ \(TOON saves \d+ %\)/,
    );
  });

  it('dump-prompt prints the prompt levels, the context and the question for the role, with token estimates', async () => {
    const io = new CapturedIo();
    expect(await dumpPrompt(['--graph', 'nba-workflow', '--role', 'editor', 'What does fetch-api do?'], env, io)).toBe(
      0,
    );
    const headers = io.out.match(/^=== \[\d\] .*$/gm) ?? [];
    expect(headers).toHaveLength(5);
    expect(headers[0]).toMatch(/level 1: instructions and rules .*, cache breakpoint after it — ~\d+ tokens/);
    expect(headers[1]).toMatch(/level 2: the workspace's node types, cache breakpoint after it — ~\d+ tokens/);
    expect(headers[2]).toMatch(/level 3: the graph's state \(sheets, size\), cache breakpoint after it — ~\d+ tokens/);
    expect(headers[3]).toContain('the question');
    expect(headers[4]).toContain('level 4: per-message data (the retrieved context for this question)');
    expect(io.out).toContain('- Size: 9 nodes');
    expect(io.out).toMatch(/Stable prefix \(tools and levels 1-3, cached by providers across questions\): ~\d+ tokens/);
    expect(io.out).toContain('What does fetch-api do?');
    expect(io.out).toMatch(/Tools offered: 15 .*propose_batch, ask_user/);
    expect(io.out).toMatch(/Estimated prompt: ~\d+ tokens of messages \+ ~\d+ tokens of tools = ~\d+ tokens/);
  });

  it('dump-prompt shows the graph’s always-sent data in level 2', async () => {
    const db = openSqliteDatabase(dataDir);
    try {
      await new SqliteAlwaysSendRepository(db).put(
        'default',
        'nba-workflow',
        { nodeKeys: ['fetch-api'], nodeTypes: [] },
        1,
      );
    } finally {
      db.close();
    }
    const io = new CapturedIo();
    expect(await dumpPrompt(['--graph', 'nba-workflow', 'What does fetch-api do?'], env, io)).toBe(0);
    expect(io.out).toMatch(
      /Always sent \(level 2, PUT \/api\/ai\/graphs\/nba-workflow\/always-send\): ~\d+ of 4000 tokens/,
    );
    expect(io.out).toContain('ALWAYS SENT for graph nba-workflow');
    expect(io.out).toContain('### Node fetch-api\ntype: api-call');
  });

  it('dump-tools prints the definitions offered to a viewer and runs each read tool on the demo graph', async () => {
    const io = new CapturedIo();
    expect(await dumpTools(['--role', 'viewer'], env, io)).toBe(0);
    expect(io.out).toContain('Tools offered to role viewer: 8');
    expect(io.out).not.toContain('propose_');
    const calls = io.out.split(/^--- /m).slice(1);
    expect(calls).toHaveLength(7);
    // A failed call would come back as {"error": …}.
    for (const call of calls) expect(call).not.toMatch(/^\{"error":/m);
    expect(io.out).toContain('"displayName":"API Call"');
  });

  it('refuses a missing graph or question with a usage message (exit code 2)', async () => {
    const io = new CapturedIo();
    expect(await dumpContext(['just a question'], env, io)).toBe(2);
    expect(io.err).toContain('Usage: npm run ai:dump-context');
    expect(await dumpPrompt(['--graph', 'nba-workflow', '--role', 'owner', 'q'], env, io)).toBe(2);
    expect(await dumpTools(['--role'], env, io)).toBe(2);
  });
});
