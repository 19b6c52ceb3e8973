import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { embedNodes } from '../../src/cli/embed-nodes.cli';
import { CliIo } from '../../src/cli/cli-context';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphDocument } from '../../src/graph/graph.types';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { ScriptedLlmServer } from '../support/scripted-llm-server';

const WS = 'default';
/** A second graph with one node that has nothing to embed (no type text, no code, no data). */
const small: GraphDocument = {
  graph: { _key: 'small', workspace: WS, name: 'Small', sheetsList: { '0': 'main' } },
  nodes: [
    {
      _key: 'send-invoice',
      graphKey: 'small',
      type: 'email',
      sheet: '0',
      posX: 0,
      posY: 0,
      data: { to: 'billing@example.com', subject: 'Invoice' },
    },
    {
      _key: 'archive',
      graphKey: 'small',
      type: 'storage',
      sheet: '0',
      posX: 0,
      posY: 0,
      process: 'next(0, save(incoming));',
    },
    { _key: 'blank', graphKey: 'small', type: ' ', sheet: '0', posX: 0, posY: 0 },
  ],
  edges: [],
  nodeConfigs: [],
};
const NODES = nbaWorkflowDemo.nodes.length + small.nodes.length;

class CapturedIo implements CliIo {
  out = '';
  err = '';
  readonly stdout = { write: (text: string) => (this.out += text) };
  readonly stderr = { write: (text: string) => (this.err += text) };
}

/** The final report's numbers, read from what the command printed. */
function reported(out: string): Record<string, number> {
  const number = (label: string) => Number(new RegExp(`^  ${label}\\s+(\\d+)`, 'm').exec(out)?.[1]);
  return {
    processed: number('processed'),
    embedded: number('embedded'),
    skipped: number('skipped'),
    failed: number('failed'),
  };
}

describe('npm run ai:embed-nodes', () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'embed-nodes-cli-'));
    env = { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'error' };
    const db: Database = openSqliteDatabase(dataDir);
    const store = new SqliteGraphStore(db);
    await store.importGraph(WS, structuredClone(nbaWorkflowDemo));
    await store.importGraph(WS, structuredClone(small));
    db.close();
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function run(...argv: string[]): Promise<{ code: number; io: CapturedIo }> {
    const io = new CapturedIo();
    const code = await embedNodes(argv, env, io);
    return { code, io };
  }

  it('embeds missing vectors, skips everything the second time, and re-embeds all with --force', async () => {
    const first = await run('batch=4', 'delay=0');
    expect(first.code).toBe(0);
    expect(reported(first.io.out)).toEqual({ processed: NODES, embedded: NODES - 1, skipped: 1, failed: 0 });
    expect(first.io.out).toContain('default/nba-workflow: embedded 9, skipped 0, failed 0');
    expect(first.io.out).toContain('(empty text 1, unchanged 0)');

    const second = await run('delay=0');
    expect(second.code).toBe(0);
    expect(reported(second.io.out)).toEqual({ processed: NODES, embedded: 0, skipped: NODES, failed: 0 });
    expect(second.io.out).toMatch(/upstream calls 0/);

    const forced = await run('--force', '--graph', 'small', 'delay=0');
    expect(reported(forced.io.out)).toEqual({ processed: 3, embedded: 2, skipped: 1, failed: 0 });
  });

  it('re-embeds vectors of another model (switching the local dimension), leaving nothing for a third run', async () => {
    await run('delay=0');
    env = { ...env, EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: 'local-hash-v1-64' };
    const switched = await run('delay=0', '--graph', 'nba-workflow');
    expect(reported(switched.io.out)).toEqual({ processed: 9, embedded: 9, skipped: 0, failed: 0 });
    expect(reported((await run('delay=0', '--graph', 'nba-workflow')).io.out).embedded).toBe(0);
  });

  it('spaces upstream calls by delay=MS', async () => {
    const started = Date.now();
    const { code, io } = await run('batch=3', 'delay=60', '--graph', 'nba-workflow');
    expect(code).toBe(0);
    expect(io.out).toMatch(/upstream calls 3/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
  });

  it('exits non-zero and reports the failed nodes when the provider fails for a batch; the next run finishes the job', async () => {
    const server = await ScriptedLlmServer.start({ embeddingDimension: 8 });
    try {
      env = {
        ...env,
        EMBEDDING_PROVIDER: 'openai-compatible',
        EMBEDDING_BASE_URL: server.openAiBaseUrl,
        EMBEDDING_MODEL: 'scripted-embedding',
      };
      // The second batch is refused for good (the adapter and the runner retry a 503; every try fails).
      const refused = { error: { status: 503, message: 'overloaded' } };
      server.enqueueEmbeddings({}, ...Array.from({ length: 9 }, () => refused));
      const failing = await run('batch=5', 'delay=0', '--graph', 'nba-workflow');
      expect(failing.code).toBe(1);
      expect(reported(failing.io.out)).toEqual({ processed: 9, embedded: 5, skipped: 0, failed: 4 });

      server.reset();
      const retry = await run('batch=5', 'delay=0', '--graph', 'nba-workflow');
      expect(retry.code).toBe(0);
      expect(reported(retry.io.out)).toEqual({ processed: 9, embedded: 4, skipped: 5, failed: 0 });
    } finally {
      await server.close();
    }
  });

  it('answers usage errors with exit code 2 and an unknown graph with 1', async () => {
    const typo = await run('--forse');
    expect(typo.code).toBe(2);
    expect(typo.io.err).toContain('Unknown option --forse');
    const unknown = await run('--graph', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.io.err).toContain('No graph "nope"');
  });
});
