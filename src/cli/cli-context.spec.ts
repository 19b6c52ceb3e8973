import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { resetLogSink, setLogSink } from '../observability/logger';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { TokenCounter } from '../rag/token-counter';
import { openCliContext } from './cli-context';

describe(openCliContext.name, () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'cli-context-'));
    setLogSink(() => undefined);
  });
  afterEach(() => {
    resetLogSink();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('wires the retriever and the token counter without loading the tokenizer (a command loads it on its first count)', async () => {
    const cli = await openCliContext({ NODE_ENV: 'test', DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'none' });
    try {
      expect(cli.app.get(GraphRagRetriever, { strict: false })).toBeInstanceOf(GraphRagRetriever);
      const counter = cli.app.get(TokenCounter, { strict: false });
      expect(counter.loaded).toBe(false);
      expect(counter.count('fetch api')).toBeGreaterThan(0);
      expect(counter.loaded).toBe(true);
    } finally {
      await cli.close();
    }
  });
});
