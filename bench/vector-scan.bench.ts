import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { argumentValue, numberArgument, numberListArgument } from './bench-arguments';
import { formatTable } from './bench-table';
import { EngineRun, EngineRunRequest } from './vector-scan.child';
import { exactTopK, syntheticDataset, writeStoreFile } from './vector-scan.dataset';
import { SCAN_ENGINES } from './vector-scan.engines';

/**
 * The vector search of the embedded store, answered by each candidate side by side: the project's
 * kernels (VectorIndex: WebAssembly SIMD float32 scan and int8 pre-scan), sqlite-vec (vec0 tables,
 * and its scalar distance over the nodes table as it is) and usearch (exact brute force, and HNSW).
 * For each graph size and dimension: start-up (from the open store to the first answer), query
 * latency, recall against the exact answers, memory, and what one node's new vector costs.
 *
 *   npx tsc -p tsconfig.build.json && node --expose-gc dist/bench/vector-scan.bench.js \
 *     [--sizes 1000,5000,20000] [--dims 384,512,1536] [--queries 200] [--k 40] [--min-score 0.1] \
 *     [--engines kernels,kernels-f32,...] [--out FILE]
 *
 * Every engine runs in a process of its own (memory figures are its own), one at a time, on the
 * same vectors (synthetic, embedding-like: see vector-scan.dataset.ts) and the same store file.
 */

function runEngine(request: EngineRunRequest): Promise<EngineRun> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, `vector-scan.child${path.extname(__filename)}`), [], {
      execArgv: ['--expose-gc', ...process.execArgv.filter((flag) => flag !== '--expose-gc')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (answer: { ok: true; run: EngineRun } | { ok: false; error: string }) =>
      answer.ok ? resolve(answer.run) : reject(new Error(`${request.engine}: ${answer.error}`)),
    );
    child.once('exit', (code) => code !== 0 && reject(new Error(`${request.engine} exited with ${code}`)));
    child.send(request);
  });
}

const fixed = (value: number, digits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function tableOf(runs: EngineRun[]): string[] {
  return formatTable(
    [
      'nodes',
      'dim',
      'engine',
      'exact',
      'start-up ms',
      'query p50 ms',
      'query p95 ms',
      'query cpu p50 ms',
      'recall',
      'RSS MB',
      'heap+buf MB',
      'persist ms',
      'file MB',
      'update ms',
      'search after ms',
      'seen',
    ],
    runs.map((run) => [
      fixed(run.size, 0),
      String(run.dimension),
      run.engine,
      run.exact ? 'yes' : 'no',
      fixed(run.startupMs, 0),
      fixed(run.query.p50, 2),
      fixed(run.query.p95, 2),
      fixed(run.queryCpu.p50, 2),
      fixed(run.recall, 3),
      fixed(run.rssMb, 1),
      fixed(run.heapAndBuffersMb, 1),
      fixed(run.persistMs, 0),
      fixed(run.fileMb, 1),
      fixed(run.update.p50, 3),
      fixed(run.searchAfterUpdate.p50, 2),
      run.updatesSeen ? 'yes' : 'NO',
    ]),
    [2],
  );
}

export async function runVectorScanBench(
  options: {
    sizes?: number[];
    dims?: number[];
    queries?: number;
    k?: number;
    minScore?: number;
    engines?: string[];
  } = {},
): Promise<EngineRun[]> {
  const sizes = options.sizes ?? [1_000, 5_000, 20_000];
  const dims = options.dims ?? [384, 512, 1_536];
  const queries = options.queries ?? 200;
  const k = options.k ?? 40;
  const minScore = options.minScore ?? 0.1;
  const engines = options.engines ?? Object.keys(SCAN_ENGINES);
  const unknown = engines.filter((engine) => !(engine in SCAN_ENGINES));
  if (unknown.length > 0)
    throw new Error(`Unknown engine(s): ${unknown.join(', ')}; known: ${Object.keys(SCAN_ENGINES).join(', ')}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'vector-scan-bench-'));
  const runs: EngineRun[] = [];
  try {
    for (const size of sizes) {
      for (const dimension of dims) {
        const dataset = syntheticDataset(size, dimension, queries);
        const storeFile = path.join(dir, `store-${size}-${dimension}.sqlite`);
        const truthFile = path.join(dir, `truth-${size}-${dimension}.json`);
        writeStoreFile(storeFile, dataset);
        writeFileSync(truthFile, JSON.stringify(exactTopK(dataset, k, minScore)));
        for (const engine of engines) {
          const run = await runEngine({ engine, size, dimension, queries, k, minScore, storeFile, truthFile });
          runs.push(run);
          process.stdout.write(`${tableOf([run]).at(-1)}\n`);
        }
        rmSync(storeFile, { force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return runs;
}

if (require.main === module) {
  const load = loadavg();
  runVectorScanBench({
    sizes: numberListArgument('sizes'),
    dims: numberListArgument('dims'),
    queries: numberArgument('queries'),
    k: numberArgument('k'),
    minScore: numberArgument('min-score'),
    engines: argumentValue('engines')?.split(','),
  }).then(
    (runs) => {
      const end = loadavg();
      console.log(
        `\n## vector scan (k ${numberArgument('k') ?? 40}, load average ${load[0].toFixed(2)} → ${end[0].toFixed(2)})`,
      );
      console.log(tableOf(runs).join('\n'));
      const out = argumentValue('out');
      if (out)
        writeFileSync(
          out,
          JSON.stringify(
            { timestamp: new Date().toISOString(), load: { start: load, end }, node: process.version, runs },
            null,
            2,
          ),
        );
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
