import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { JsonSchema, JsonSchemaValidator } from '../src/ai/tools/json-schema.validator';
import { searchNodesTool } from '../src/ai/tools/read/search-nodes.read-tool';
import { WRITE_TOOL_DEFINITIONS } from '../src/ai/tools/write-tool.definitions';
import { configureLogging, Logger } from '../src/observability/logger';
import { cpuMsSince, median } from './bench-statistics';
import { formatTable } from './bench-table';

/**
 * The libraries on the request path that no other section isolates: the tool-argument validator
 * (every tool call, ajv) and the logger (pino, on every request that logs). Figures per call, the
 * median of 5 rounds after a warm-up; the logger runs in a child process and writes its JSON lines
 * to a pipe that the parent drains, as a container's log driver does.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/hot-path-libraries.bench.js [--calls 20000]
 */

export interface HotPathRow {
  case: string;
  /** Wall time per call (µs), median of the rounds. */
  microsPerCall: number;
  /** CPU time per call (µs) of the measuring process, median of the rounds. */
  cpuMicrosPerCall: number;
}

export interface HotPathResult {
  calls: number;
  rows: HotPathRow[];
}

const ROUNDS = 5;

function timeCalls(name: string, calls: number, call: (index: number) => void): HotPathRow {
  for (let index = 0; index < Math.min(calls, 5_000); index += 1) call(index);
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const usage = process.cpuUsage();
    const started = performance.now();
    for (let index = 0; index < calls; index += 1) call(index);
    walls.push(((performance.now() - started) * 1000) / calls);
    cpus.push((cpuMsSince(usage) * 1000) / calls);
  }
  return { case: name, microsPerCall: median(walls), cpuMicrosPerCall: median(cpus) };
}

function schemaOf(name: string): JsonSchema {
  const definition = [searchNodesTool.definition, ...WRITE_TOOL_DEFINITIONS].find(
    (tool) => tool.function.name === name,
  );
  if (!definition) throw new Error(`no tool ${name}`);
  return definition.function.parameters as JsonSchema;
}

const CREATE_NODE = {
  typeKey: 'log-node',
  sheet: '0',
  posX: 800,
  posY: 300,
  nodeKey: 'log-errors',
  process: 'console.log(input.errors)',
  handles: {
    L: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] },
    R: { position: 'fix', point: [{ id: 'R-0', type: 'out', accept: 'any' }] },
  },
  data: { level: 'warn' },
  reason: 'Log the errors the API returns',
};

function validationRows(calls: number): HotPathRow[] {
  const createNode = new JsonSchemaValidator(schemaOf('propose_create_node'));
  const batch = new JsonSchemaValidator(schemaOf('propose_batch'));
  const search = new JsonSchemaValidator(schemaOf(searchNodesTool.name));
  const searchArguments = Object.fromEntries(
    Object.entries(schemaOf(searchNodesTool.name).properties ?? {}).map(([key, property]) => [
      key,
      property.type === 'integer' ? 5 : 'fetch-api',
    ]),
  );
  const batchArguments = {
    actions: [
      { type: 'create_node', nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 800, posY: 300 },
      {
        type: 'create_edge',
        sourceKey: 'fetch-api',
        sourceHandle: 'R-1',
        targetKey: 'log-errors',
        targetHandle: 'L-0',
        sheet: '0',
      },
      { type: 'move_node', nodeKey: 'fetch-api', posX: 10, posY: 20 },
    ],
    reason: 'Log the errors',
  };
  const rows = [
    timeCalls(`validate ${searchNodesTool.name}, valid`, calls, () => search.validate(searchArguments)),
    timeCalls('validate propose_create_node with handles, valid', calls, () => createNode.validate(CREATE_NODE)),
    timeCalls('validate propose_create_node, 2 problems', calls, () =>
      createNode.validate({ ...CREATE_NODE, posX: 'left', colour: 'red' }),
    ),
    timeCalls('validate propose_batch (top level), valid', calls, () => batch.validate(batchArguments)),
  ];
  const problems = createNode.validate({ ...CREATE_NODE, posX: 'left', colour: 'red' });
  if (problems.length !== 2 || search.validate(searchArguments).length > 0)
    throw new Error(`unexpected validation results: ${JSON.stringify(problems)}`);
  return rows;
}

/** In a child whose stderr is a pipe: one log line with six fields, and one call its level filters out. */
function loggingRows(calls: number): Promise<HotPathRow[]> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--log-child', String(calls)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let bytes = 0;
    child.stderr?.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.once('message', (rows: HotPathRow[]) => {
      child.once('exit', () => (bytes > 0 ? resolve(rows) : reject(new Error('the logger wrote nothing'))));
    });
    child.once('error', reject);
  });
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Calls in chunks of 100 with a turn of the event loop between them, as requests interleave: the wall
 * time counted is the time inside the calls (what a request waits); the CPU time is the whole
 * process's over the round, so writes done later by an asynchronous logger are counted too.
 */
async function timeLogCalls(name: string, calls: number, call: () => void): Promise<HotPathRow> {
  const chunk = 100;
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let round = -1; round < ROUNDS; round += 1) {
    const usage = process.cpuUsage();
    let inCalls = 0;
    for (let done = 0; done < calls; done += chunk) {
      const started = performance.now();
      for (let index = 0; index < chunk; index += 1) call();
      inCalls += performance.now() - started;
      await yieldToLoop();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (round < 0) continue; // warm-up
    walls.push((inCalls * 1000) / calls);
    cpus.push((cpuMsSince(usage) * 1000) / calls);
  }
  return { case: name, microsPerCall: median(walls), cpuMicrosPerCall: median(cpus) };
}

async function logChild(calls: number): Promise<void> {
  configureLogging({ level: 'info' });
  const logger = new Logger('bench');
  const fields = {
    threadId: 'ai_01JD8X3K5N',
    graphKey: 'nba-workflow',
    provider: 'openai',
    model: 'gpt-4o-mini',
    promptTokens: 1_234,
    durationMs: 87,
  };
  const rows = [
    await timeLogCalls('log a line (info, 6 fields) to a pipe', calls, () => logger.info('token_usage', fields)),
    await timeLogCalls('log call below LOG_LEVEL (debug at info)', calls, () => logger.debug('rag_retrieve', fields)),
  ];
  process.send?.(rows, () => process.exit(0));
}

export async function runHotPathLibrariesBench(options: { calls?: number } = {}): Promise<HotPathResult> {
  const calls = options.calls ?? 20_000;
  configureLogging({ level: 'error' });
  return { calls, rows: [...validationRows(calls), ...(await loggingRows(calls))] };
}

export function hotPathLibrariesTable(result: HotPathResult): string[] {
  return formatTable(
    ['case', 'µs in the call', 'CPU µs per call (later writes included)'],
    result.rows.map((row) => [row.case, row.microsPerCall.toFixed(2), row.cpuMicrosPerCall.toFixed(2)]),
  );
}

if (require.main === module) {
  const childAt = process.argv.indexOf('--log-child');
  if (childAt >= 0) {
    void logChild(Number(process.argv[childAt + 1]));
  } else {
    const callsAt = process.argv.indexOf('--calls');
    runHotPathLibrariesBench({ calls: callsAt >= 0 ? Number(process.argv[callsAt + 1]) : undefined }).then(
      (result) => console.log(hotPathLibrariesTable(result).join('\n')),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  }
}
