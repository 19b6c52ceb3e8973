import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { argumentValue, numberArgument } from '../bench/bench-arguments';
import { formatTable } from '../bench/bench-table';
import { repositoryPath } from '../bench/repository-path';
import { configureLogging } from '../src/observability/logger';
import { ApplyWindowResult, runApplyWindowScenario } from './apply-window.scenario';
import { CommitConflictResult, runCommitConflictScenario } from './commit-conflict.scenario';
import { ContextLengthResult, runContextLengthScenario } from './context-length.scenario';
import { CrashScenarioResult, KILL_PHASES, LANDED_SHARE_MIN, runCrashScenario } from './crash.scenario';
import { IsolationScenarioResult, runIsolationScenario } from './isolation.scenario';
import {
  REDIS_FAULTS,
  RedisFaultName,
  RedisFaultsResult,
  runRedisFaultsScenario,
  WRITE_LOSING_FAULTS,
} from './redis-faults.scenario';
import { ResumeRaceResult, runResumeRaceScenario } from './resume-race.scenario';
import { FuzzResult, runRestFuzzScenario } from './rest-fuzz.scenario';
import { runSocketFuzzScenario } from './socket-fuzz.scenario';
import { runUpstreamFaultsScenario, UpstreamFaultsResult } from './upstream-faults.scenario';

/**
 * `npm run faults`: the service under faults and hostile input, counted. Each section is a scenario
 * of this folder (the CI-sized runs of the same scenarios are faults/*.fault-spec.ts, part of `npm test`):
 *   crash        kill -9 of the service aimed at the moment ai:thread arrives, mid-stream, mid tool round and mid
 *                commit (50 kills: a fifth at ai:thread, the rest spread evenly), restarted on the same data; each
 *                window must see at least 80 % of the kills aimed at it land there
 *   race         100 racing resumes of one interrupt across two processes on one SQLite store (3 rounds)
 *   upstream     every upstream fault mid-conversation, on the OpenAI and Anthropic wires (3 times each)
 *   fuzz-rest    1,000 fast-check cases per REST operation of the OpenAPI document
 *   fuzz-socket  1,000 fast-check cases per socket event of the gateway; exactly one terminal event per request
 *   fuzz-rest-auth    the same with AUTH_MODE=jwt: each case as a role of two workspaces or a hostile client, query
 *                     strings and headers fuzzed; no route that requires a token answers without a valid one
 *   fuzz-socket-auth  the same on the socket: one socket per role and workspace, message tokens fuzzed, plus 1,000
 *                     fuzzed handshakes (token, page origin, query string): none connects without a valid token
 *                     from an allowed page
 *   isolation    8 conversations × 25 questions at once, each on its own thread and socket: never mixed
 *   conflicts    30 runs whose round commit meets a revision conflict (another writer renames the thread): replayed
 *   context-length  30 questions on one thread outgrowing the model's window: each retried once, smaller
 *   redis        three instances on one redis-server, 9 streams each time: Redis full, READONLY, idle timeout 1 s,
 *                CLIENT KILL of every connection in turn, a restart without persistence, SIGSTOP 5 s
 *   apply-window kill -9 aimed between a change's operation and the thread's commit: 50 approvals, 20 autonomous
 *                batches, 10 reverts; approve and reject raced across two processes (10 rounds, kills in half);
 *                10 stale proposals; 10 reverts over a human's later edit
 *
 *   npm run faults                 (= npm run build && node --expose-gc dist/faults/run-faults.js)
 *   node --expose-gc dist/faults/run-faults.js [--only crash,race,upstream,fuzz-rest,fuzz-socket,fuzz-rest-auth,fuzz-socket-auth,isolation,conflicts,context-length,redis,apply-window]
 *        [--kills 50] [--kills-at-thread 10] [--resumes 100] [--rounds 3] [--repeat 3] [--runs 1000] [--conversations 8] [--questions 25] [--conflict-runs 30] [--context-questions 30]
 *        [--redis-faults full,readonly,idle-timeout,client-kill,restart,sigstop]
 *        [--approval-kills 50] [--batch-kills 20] [--race-rounds 10] [--stale-checks 10] [--revert-checks 20] [--seed 1] [--out FILE]
 *
 * Exit code 1 when a section misses its bar or crashed.
 */

const SECTIONS = [
  'crash',
  'race',
  'upstream',
  'fuzz-rest',
  'fuzz-socket',
  'fuzz-rest-auth',
  'fuzz-socket-auth',
  'isolation',
  'conflicts',
  'context-length',
  'redis',
  'apply-window',
] as const;
type SectionName = (typeof SECTIONS)[number];

interface Figure {
  section: SectionName;
  figure: string;
  value: string;
  bar: string;
  pass: boolean;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function crashFigures(result: CrashScenarioResult): Figure[] {
  const phases = KILL_PHASES.map((phase) => {
    const { aimed, landed } = result.phases[phase];
    const needed = Math.max(1, Math.ceil(aimed * LANDED_SHARE_MIN));
    return {
      section: 'crash' as const,
      figure: `kills aimed ${phase === 'at ai:thread' ? 'at the moment ai:thread arrives' : `mid ${phase}`}: landed there`,
      value: `${count(landed)} of ${count(aimed)}`,
      bar: `≥ ${count(needed)}`,
      pass: aimed > 0 && landed >= needed,
    };
  });
  return [
    ...phases,
    {
      section: 'crash',
      figure: 'kill -9 survived (restarts on the same data)',
      value: `${count(result.restarts)} / ${count(result.kills)}`,
      bar: 'all',
      pass: result.restarts === result.kills,
    },
    {
      section: 'crash',
      figure: 'invalid threads after a restart',
      value: `${count(result.invalidThreads)} of ${count(result.threads)}`,
      bar: '0',
      pass: result.invalidThreads === 0,
    },
    {
      section: 'crash',
      figure: 'acknowledged user messages lost',
      value: `${count(result.lostMessages)} of ${count(result.acknowledgedMessages)}`,
      bar: '0',
      pass: result.lostMessages === 0,
    },
    {
      section: 'crash',
      figure: 'killed the moment ai:thread arrived: messages lost',
      value: `${count(result.lostAtThread)} of ${count(result.killsAtThread)}`,
      bar: '0',
      pass: result.lostAtThread === 0 && result.killsAtThread > 0,
    },
    {
      section: 'crash',
      figure: 'threads that did not resume',
      value: count(result.notResumable),
      bar: '0',
      pass: result.notResumable === 0,
    },
  ];
}

function raceFigures(result: ResumeRaceResult): Figure[] {
  const doubles =
    result.nodesCreated.filter((nodes) => nodes !== 1).length +
    result.applied.filter((applied) => applied !== 1).length;
  return [
    {
      section: 'race',
      figure: `racing resumes: ${count(result.resumesPerRound)} per interrupt × ${result.rounds}, two processes`,
      value: `applied ${result.applied.join(', ')}; nodes ${result.nodesCreated.join(', ')}; continuations ${result.continuations}`,
      bar: 'exactly 1 each',
      pass: doubles === 0 && result.continuations === result.rounds,
    },
    {
      section: 'race',
      figure: 'racing resumes: double applies / other answers / invalid threads',
      value: `${doubles} / ${result.unexpected.length} / ${result.invalidThreads}`,
      bar: '0 / 0 / 0',
      pass: doubles === 0 && result.unexpected.length === 0 && result.invalidThreads === 0,
    },
  ];
}

function upstreamFigures(result: UpstreamFaultsResult): Figure[] {
  const byFault = new Map<string, UpstreamFaultsResult['outcomes']>();
  for (const outcome of result.outcomes)
    byFault.set(`${outcome.name} (${outcome.provider})`, [
      ...(byFault.get(`${outcome.name} (${outcome.provider})`) ?? []),
      outcome,
    ]);
  return [...byFault].map(([name, outcomes]) => {
    const worst = Math.max(...outcomes.map((outcome) => outcome.msToError));
    const codes = [...new Set(outcomes.map((outcome) => outcome.code))].join(', ');
    const pass = outcomes.every(
      (outcome) =>
        outcome.withinBound && outcome.code !== 'internal' && outcome.threadProblems.length === 0 && outcome.resumed,
    );
    return {
      section: 'upstream' as const,
      figure: `upstream: ${name}`,
      value: `ai:error ${codes} in ≤ ${count(worst)} ms; thread valid, resumed`,
      bar: `≤ ${count(outcomes[0].boundMs)} ms`,
      pass,
    };
  });
}

function fuzzFigures(
  section: 'fuzz-rest' | 'fuzz-socket' | 'fuzz-rest-auth' | 'fuzz-socket-auth',
  result: FuzzResult,
): Figure[] {
  const growth = result.memory.heapAfterBytes - result.memory.heapBeforeBytes;
  const rest = section.startsWith('fuzz-rest');
  const auth = section.endsWith('-auth');
  const label = `${rest ? 'REST' : 'socket'}${auth ? ' with JWT' : ''}`;
  return [
    ...result.targets.map((target) => ({
      section,
      figure: `fuzz${auth ? ' (JWT)' : ''} ${target.target}`,
      value:
        `${count(target.cases)} cases: ${target.serverErrors} ${rest ? '5xx' : 'internal'}, ${target.badShapes} bad shapes` +
        (target.authBypasses !== undefined ? `, ${target.authBypasses} without a valid token let through` : ''),
      bar: target.authBypasses !== undefined ? '0 / 0 / 0' : '0 / 0',
      pass:
        target.serverErrors === 0 &&
        target.badShapes === 0 &&
        (target.authBypasses ?? 0) === 0 &&
        target.counterexample === undefined,
    })),
    ...(result.terminalViolations !== undefined
      ? [
          {
            section,
            figure: `fuzz ${label}: requests without exactly one terminal event, or with an event after it`,
            value: count(result.terminalViolations),
            bar: '0',
            pass: result.terminalViolations === 0,
          },
        ]
      : []),
    {
      section,
      figure: `fuzz ${label}: crashes; heap after a full GC, before → after`,
      value: `${result.crashes}; ${mb(result.memory.heapBeforeBytes)} → ${mb(result.memory.heapAfterBytes)} (${growth >= 0 ? '+' : ''}${mb(growth)})`,
      bar: '0; < +24 MB',
      pass: result.crashes === 0 && growth < 24 * 1024 * 1024,
    },
  ];
}

function isolationFigures(result: IsolationScenarioResult): Figure[] {
  return [
    {
      section: 'isolation',
      figure: `isolation: ${result.conversations} conversations × ${result.questions} questions at once (${count(result.upstreamRequests)} upstream requests, ${count(result.interleavings)} switches between conversations)`,
      value: `${result.mixedRequests} requests mixing conversations, ${result.contaminatedThreads} threads holding another's message, ${result.invalidThreads} invalid; ${(result.durationMs / 1000).toFixed(1)} s`,
      bar: '0 / 0 / 0',
      pass:
        result.mixedRequests === 0 &&
        result.contaminatedThreads === 0 &&
        result.invalidThreads === 0 &&
        result.problems.length === 0,
    },
  ];
}

function conflictFigures(result: CommitConflictResult): Figure[] {
  return [
    {
      section: 'conflicts',
      figure: `revision conflict on a round commit (another writer mid-run) × ${result.runs}`,
      value: `${result.answered} answered, ${result.replayed} replayed, ${result.failed} failed, ${result.invalidThreads} invalid threads`,
      bar: `${result.runs} / ${result.runs} / 0 / 0`,
      pass:
        result.answered === result.runs &&
        result.replayed === result.runs &&
        result.failed === 0 &&
        result.invalidThreads === 0,
    },
  ];
}

function contextLengthFigures(result: ContextLengthResult): Figure[] {
  return [
    {
      section: 'context-length',
      figure: `context-length: ${result.questions} questions on one thread, model window ${count(result.contextWindow)} tokens`,
      value: `${result.answeredDirectly} answered at once, ${result.answeredAfterRetry} after one smaller retry, ${result.failed} failed; ${result.invalidThreads} invalid threads`,
      bar: 'every one answered, retries > 0, 0 invalid',
      pass: result.failed === 0 && result.answeredAfterRetry > 0 && result.invalidThreads === 0,
    },
  ];
}

function redisFigures(result: RedisFaultsResult): Figure[] {
  return result.outcomes.flatMap((outcome) => {
    const losing = WRITE_LOSING_FAULTS.has(outcome.fault);
    const refusedElsewhere = outcome.rejoinsRefused['rejoined-elsewhere'];
    return [
      {
        section: 'redis' as const,
        figure: `redis ${outcome.fault}: where it landed (${outcome.holdMs} ms${outcome.fault === 'client-kill' ? ' between kills' : ''})`,
        value: `${outcome.streamingAtFault} of ${outcome.streams} streams mid-stream; ${outcome.injectionsWhileStreaming} of ${outcome.injections} injections while streaming; ${outcome.connectionsClosed} connections closed`,
        bar: 'every stream, every injection',
        pass:
          outcome.streamingAtFault === outcome.streams &&
          outcome.injectionsWhileStreaming === outcome.injections &&
          outcome.injections > 0,
      },
      {
        section: 'redis' as const,
        figure: `redis ${outcome.fault}: streams aborted / events lost / duplicated on rejoin / overlay divergences ${5} s after`,
        value: `${outcome.aborted} / ${outcome.eventsLost} / ${outcome.eventsDuplicated} / ${outcome.overlay.divergences}`,
        bar: '0 / 0 / 0 / 0',
        pass:
          outcome.aborted === 0 &&
          outcome.eventsLost === 0 &&
          outcome.eventsDuplicated === 0 &&
          outcome.overlay.divergences === 0 &&
          outcome.problems.length === 0,
      },
      {
        section: 'redis' as const,
        figure: `redis ${outcome.fault}: rejoins refused, same instance / another (${outcome.rejoins['rejoined-here']} + ${outcome.rejoins['rejoined-elsewhere']}); answers whole in their thread`,
        value: `${outcome.rejoinsRefused['rejoined-here']} / ${refusedElsewhere}${outcome.refusalCodes.length ? ` (${[...new Set(outcome.refusalCodes)].join(', ')})` : ''}; ${outcome.answersStored} of ${outcome.streams}`,
        bar: losing ? '0 / any (log kept locally); all' : '0 / 0; all',
        pass:
          outcome.rejoinsRefused['rejoined-here'] === 0 &&
          (losing || refusedElsewhere === 0) &&
          outcome.answersStored === outcome.streams,
      },
    ];
  });
}

function applyWindowFigures(result: ApplyWindowResult): Figure[] {
  const { approvalKills, batchKills, revertKills, race } = result;
  return [
    {
      section: 'apply-window',
      figure: 'kill -9 inside the apply window of an approval (landed / aimed)',
      value: `${count(approvalKills.landed)} / ${count(approvalKills.aimed)}`,
      bar: '≥ 50 landed',
      pass: approvalKills.landed >= Math.min(50, approvalKills.aimed) && approvalKills.landed === approvalKills.aimed,
    },
    {
      section: 'apply-window',
      figure: 'kill -9 inside an autonomous batch, between its applies and its commit (landed / aimed)',
      value: `${count(batchKills.landed)} / ${count(batchKills.aimed)}`,
      bar: '≥ 20 landed',
      pass: batchKills.landed >= Math.min(20, batchKills.aimed) && batchKills.landed === batchKills.aimed,
    },
    {
      section: 'apply-window',
      figure: 'kill -9 inside the window of a revert (landed / aimed)',
      value: `${count(revertKills.landed)} / ${count(revertKills.aimed)}`,
      bar: 'all',
      pass: revertKills.landed === revertKills.aimed,
    },
    {
      section: 'apply-window',
      figure: 'double applies (a change twice in the graph) / threads not saying what happened / invalid threads',
      value: `${result.doubleApplies} / ${result.untold} / ${result.invalidThreads}`,
      bar: '0 / 0 / 0',
      pass: result.doubleApplies === 0 && result.untold === 0 && result.invalidThreads === 0,
    },
    {
      section: 'apply-window',
      figure: `approve and reject raced across two processes × ${race.rounds} (${race.killed} killed in the window)`,
      value: `${race.approved} approved, ${race.rejected} rejected, ${race.notOneOutcome} with no single outcome`,
      bar: '0 without one outcome',
      pass: race.notOneOutcome === 0 && race.approved + race.rejected === race.rounds,
    },
    {
      section: 'apply-window',
      figure: `stale proposals applied (of ${result.staleChecked} whose node a human changed first)`,
      value: count(result.staleApplied),
      bar: '0',
      pass: result.staleApplied === 0 && result.staleChecked > 0,
    },
    {
      section: 'apply-window',
      figure: `reverts that overwrote a later human edit (of ${result.revertsChecked})`,
      value: count(result.revertsOverwritingHumanEdits),
      bar: '0',
      pass: result.revertsOverwritingHumanEdits === 0 && result.revertsChecked > 0,
    },
    {
      section: 'apply-window',
      figure: `change-log record per applied change (${count(result.recordBytes.operations)} records)`,
      value: `average ${count(result.recordBytes.average)} bytes, largest ${count(result.recordBytes.max)} bytes`,
      bar: 'measured',
      pass: result.recordBytes.operations > 0,
    },
  ];
}

async function main(): Promise<void> {
  configureLogging({ level: 'error' });
  const only = argumentValue('only')?.split(',') as SectionName[] | undefined;
  const unknown = only?.filter((name) => !SECTIONS.includes(name));
  if (unknown?.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; sections: ${SECTIONS.join(', ')}`);
  const selected = new Set<SectionName>(only ?? SECTIONS);
  const seed = numberArgument('seed') ?? 1;
  const started = performance.now();
  const startLoad = os.loadavg();
  console.log(
    `npm run faults: ${os.cpus().length} CPUs, node ${process.version}, load average ${startLoad.map((value) => value.toFixed(2)).join(' / ')}, seed ${seed}`,
  );

  const figures: Figure[] = [];
  const results: Record<string, unknown> = {};
  const run = async <T>(name: SectionName, work: () => Promise<T>, toFigures: (result: T) => Figure[]) => {
    if (!selected.has(name)) return;
    const sectionStarted = performance.now();
    console.log(`\n## ${name}`);
    try {
      const result = await work();
      results[name] = result;
      const produced = toFigures(result);
      figures.push(...produced);
      for (const figure of produced) console.log(`${figure.pass ? 'PASS' : 'FAIL'}  ${figure.figure}: ${figure.value}`);
      const problems = (result as { problems?: string[] }).problems;
      if (problems?.length) console.log(problems.map((problem) => `  ${problem}`).join('\n'));
      console.log(`(${((performance.now() - sectionStarted) / 1000).toFixed(0)} s)`);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      results[name] = { error: message };
      figures.push({
        section: name,
        figure: `${name}: the section crashed`,
        value: message.split('\n')[0],
        bar: 'runs',
        pass: false,
      });
      console.log(`FAILED: ${message}`);
    }
  };

  await run(
    'crash',
    () =>
      runCrashScenario({
        kills: numberArgument('kills') ?? 50,
        killsAtThread: numberArgument('kills-at-thread'),
        seed,
      }),
    crashFigures,
  );
  await run(
    'race',
    () => runResumeRaceScenario({ resumes: numberArgument('resumes') ?? 100, rounds: numberArgument('rounds') ?? 3 }),
    raceFigures,
  );
  await run('upstream', () => runUpstreamFaultsScenario({ repeat: numberArgument('repeat') ?? 3 }), upstreamFigures);
  await run(
    'fuzz-rest',
    () => runRestFuzzScenario({ runs: numberArgument('runs') ?? 1_000, seed }),
    (result) => fuzzFigures('fuzz-rest', result),
  );
  await run(
    'fuzz-socket',
    () => runSocketFuzzScenario({ runs: numberArgument('runs') ?? 1_000, seed }),
    (result) => fuzzFigures('fuzz-socket', result),
  );
  await run(
    'fuzz-rest-auth',
    () => runRestFuzzScenario({ runs: numberArgument('runs') ?? 1_000, seed, auth: true }),
    (result) => fuzzFigures('fuzz-rest-auth', result),
  );
  await run(
    'fuzz-socket-auth',
    () => runSocketFuzzScenario({ runs: numberArgument('runs') ?? 1_000, seed, auth: true }),
    (result) => fuzzFigures('fuzz-socket-auth', result),
  );
  await run(
    'isolation',
    () =>
      runIsolationScenario({
        conversations: numberArgument('conversations') ?? 8,
        questions: numberArgument('questions') ?? 25,
      }),
    isolationFigures,
  );
  await run(
    'conflicts',
    () => runCommitConflictScenario({ runs: numberArgument('conflict-runs') ?? 30 }),
    conflictFigures,
  );
  await run(
    'context-length',
    () => runContextLengthScenario({ questions: numberArgument('context-questions') ?? 30 }),
    contextLengthFigures,
  );
  await run(
    'apply-window',
    () =>
      runApplyWindowScenario({
        approvalKills: numberArgument('approval-kills') ?? 50,
        batchKills: numberArgument('batch-kills') ?? 20,
        raceRounds: numberArgument('race-rounds') ?? 10,
        staleChecks: numberArgument('stale-checks') ?? 10,
        revertChecks: numberArgument('revert-checks') ?? 20,
        seed,
      }),
    applyWindowFigures,
  );

  await run(
    'redis',
    () =>
      runRedisFaultsScenario({
        faults: (argumentValue('redis-faults')?.split(',') as RedisFaultName[] | undefined) ?? REDIS_FAULTS,
      }),
    redisFigures,
  );

  const durationMs = performance.now() - started;
  const endLoad = os.loadavg();
  console.log(
    `\n## Summary (${(durationMs / 1000).toFixed(0)} s; load average ${startLoad[0].toFixed(2)} at start, ${endLoad[0].toFixed(2)} at end)`,
  );
  for (const line of formatTable(
    ['figure', 'value', 'bar', 'result'],
    figures.map((figure) => [figure.figure, figure.value, figure.bar, figure.pass ? 'PASS' : 'FAIL']),
    [0, 1, 2],
  )) {
    console.log(line);
  }
  const failed = figures.filter((figure) => !figure.pass);
  console.log(`\n${figures.length - failed.length} passed, ${failed.length} failed`);
  const output = {
    timestamp: new Date().toISOString(),
    durationMs: Math.round(durationMs),
    command: process.argv.slice(2).length ? `run-faults ${process.argv.slice(2).join(' ')}` : 'npm run faults',
    seed,
    machine: {
      cpus: os.cpus().length,
      node: process.version,
      loadAverageAtStart: startLoad,
      loadAverageAtEnd: endLoad,
    },
    figures,
    sections: results,
  };
  const out = argumentValue('out') ?? (only ? undefined : repositoryPath('faults', 'results.json'));
  if (out) {
    writeFileSync(out, `${JSON.stringify(output, null, 2)}\n`);
    console.log(`results written to ${out}`);
  }
  if (failed.length > 0) process.exitCode = 1;
}

main()
  .then(() => process.exit())
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
