import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { agentOverheadTable, AgentOverheadResult, runAgentOverheadBench } from './agent-overhead.bench';
import { argumentValue } from './bench-arguments';
import { formatTable } from './bench-table';
import { HotPathResult, hotPathLibrariesTable, runHotPathLibrariesBench } from './hot-path-libraries.bench';
import { concurrencySummary, ConcurrencyResult, runConcurrencyBench } from './concurrency.bench';
import {
  ConversationStagesResult,
  conversationStagesTable,
  runConversationStagesBench,
} from './conversation-stages.bench';
import { contextSizeTable, ContextSizeResult, runContextSizeBench } from './context-size.bench';
import {
  FirstQuestionResult,
  largeGraphFirstQuestionTable,
  perThousandNodes,
  runLargeGraphFirstQuestionBench,
} from './large-graph-first-question.bench';
import { largeImportTable, LargeImportResult, runLargeImportBench } from './large-import.bench';
import { LongConversationResult, longConversationTable, runLongConversationBench } from './long-conversation.bench';
import { PromptPrefixResult, promptPrefixTable, runPromptPrefixBench } from './prompt-prefix.bench';
import { runTracingOverheadBench, TracingOverheadResult, tracingOverheadTable } from './tracing-overhead.bench';
import { repositoryPath } from './repository-path';
import { retrievalTable, RetrievalRow, runRetrievalBench } from './retrieval.bench';
import { runScaleOutBench, ScaleOutResult, scaleOutTable } from './scale-out.bench';
import { RelayConfig, RelayRow, runSocketRelayBench, socketRelayTable } from './socket-relay.bench';
import {
  CASE_LABEL,
  FRAMEWORK_NAMES,
  runServiceVsBareRelayBench,
  serviceVsBareTable,
  spreadText,
  VersusBareResult,
  VersusBareRow,
} from './service-vs-bare-relay.bench';
import { runSurfacesBench, surfacesFigures, surfacesTable } from './surfaces.bench';
import { runThreadCacheMemoryBench, ThreadCacheMemoryResult } from './thread-cache-memory.bench';

/**
 * `npm run bench`: the service's figures beside the budgets of DESIGN.md ("Performance budgets"),
 * with pass or fail, in one run of a few minutes on 2 cores, against the scripted LLM server. Each
 * section is one of the bench scripts of this folder (each also runnable alone, with more options);
 * ratios are measured within this run. Prints each section's detail, then the summary table, and
 * writes everything (raw figures, machine, load) to bench/results.json.
 *
 *   npm run bench                      (= npm run build && node --expose-gc dist/bench/run-bench.js)
 *   node --expose-gc dist/bench/run-bench.js [--only threads,overhead,retrieval,first-question,relay,bare-relay,stages,concurrency,context,import,libraries,scale-out,memory,prefix,surfaces,tracing] [--out FILE]
 *
 * Exit code 1 when a section crashed; a budget that fails is reported, not an error.
 */

const SECTIONS = [
  'threads',
  'overhead',
  'retrieval',
  'first-question',
  'relay',
  'bare-relay',
  'stages',
  'concurrency',
  'context',
  'import',
  'libraries',
  'scale-out',
  'memory',
  'prefix',
  'surfaces',
  'tracing',
] as const;
type SectionName = (typeof SECTIONS)[number];
/** The summary follows the budgets' order in DESIGN.md, then the other targets. */
const SUMMARY_ORDER: SectionName[] = [
  'retrieval',
  'first-question',
  'overhead',
  'relay',
  'bare-relay',
  'stages',
  'concurrency',
  'threads',
  'context',
  'import',
  'libraries',
  'scale-out',
  'memory',
  'prefix',
  'surfaces',
  'tracing',
];

/**
 * Long enough to measure, short enough for the whole run to stay under 5 minutes on 2 cores. With
 * many streams each relay stream also pays its conversation's setup (thread, retrieval, commits).
 */
const RELAY_CONFIGS: RelayConfig[] = [
  { streams: 1, chunks: 10_000 },
  { streams: 100, chunks: 500 },
  // Warmed by the configurations before it; two alternated rounds per target.
  { streams: 1_000, chunks: 50, rounds: 2, warmUp: false },
];
const CONVERSATIONS = 1_000;
const RETRIEVAL_BUDGET_MS = 25;
const OVERHEAD_BUDGET_MS = 10;
const RELAY_BUDGET_RATIO = 0.9;
const THREAD_BUDGET_KB = 50;
/**
 * Targets of the service against the bare relay, the openai SDK as shipped with one ai:token per delta
 * (bench/service-vs-bare-relay.bench.ts).
 */
const BARE_RELAY_BUDGET = {
  ratio: 0.85,
  ratioToolRound: 0.8,
  emitToUpstreamOneStreamExtraMs: 1.5,
  emitToUpstreamBurstFactor: 2,
  pacedFirstTokenFactor: 1.5,
  cpuFactor: 1.25,
  peakRssMB: 400,
  eventLoopDelayMaxMs: 100,
};
/** A large graph's first question, and the questions after its indexes are built (issue targets at 20,000 nodes). */
const FIRST_QUESTION_BUDGET = { firstContextMs: 1_000, p95Ms: 20, healthStallMs: 100 };
const TOON_BUDGET_SAVING = 0.3;
/** Several instances: the Redis adapter and the event log may cost at most 10 % of the relay's throughput at 100 streams. */
const SCALE_OUT_BUDGET_RATIO = 0.9;
/** Each request's prompt is mostly the previous one's, byte for byte (what prompt caches serve). */
const PREFIX_TARGET_SHARE = 0.9;

export interface Figure {
  section: SectionName;
  figure: string;
  value: string;
  budget: string;
  /** null: reported, no budget. */
  pass: boolean | null;
  notes: string;
}

interface SectionRun<T> {
  result?: T;
  error?: string;
  durationMs: number;
  loadAverage: { start: number[]; end: number[] };
}

const ms = (value: number, digits = 2) => `${value.toFixed(digits)} ms`;
/** "a / b ms" */
const pair = (a: number, b: number, digits = 2) => `${a.toFixed(digits)} / ${b.toFixed(digits)} ms`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');

function retrievalFigures(rows: RetrievalRow[], notes: string): Figure[] {
  return rows.map((row) => {
    const budgeted = row.nodes >= 20_000;
    const waiting =
      budgeted && row.missMs.p95 >= RETRIEVAL_BUDGET_MS && row.missCpuMs.p95 < RETRIEVAL_BUDGET_MS
        ? ' (CPU within budget: waiting for a core)'
        : '';
    return {
      section: 'retrieval',
      figure: `retrieval, ${count(row.nodes)} nodes, ${row.mode === 'hybrid' ? 'hybrid' : 'BM25'}: cache miss p50 / p95`,
      value: pair(row.missMs.p50, row.missMs.p95),
      budget: budgeted ? `p95 < ${RETRIEVAL_BUDGET_MS} ms` : '—',
      pass: budgeted ? row.missMs.p95 < RETRIEVAL_BUDGET_MS : null,
      notes: `miss cpu p95 ${ms(row.missCpuMs.p95)}${waiting}; hit p50 / p95 ${pair(row.hitMs.p50, row.hitMs.p95, 4)}; ${notes}`,
    };
  });
}

function overheadFigures(result: AgentOverheadResult, notes: string): Figure[] {
  return result.socket.map((entry, index) => {
    const wall = entry.measures.gatewayToUpstream;
    const cpu = entry.measures.cpu;
    const sdk = result.sdk[index]?.measures.sdkToUpstream;
    const breakdown = result.chatService[index]?.measures.chatToStream;
    return {
      section: 'overhead',
      figure: `overhead, ${entry.label.startsWith('new') ? 'new thread' : 'follow-up'}: socket event → upstream request, p50 / p99`,
      value: pair(wall.p50, wall.p99),
      budget: `p99 < ${OVERHEAD_BUDGET_MS} ms`,
      pass: wall.p99 < OVERHEAD_BUDGET_MS,
      notes:
        `cpu ${pair(cpu.p50, cpu.p99)}; bare SDK ${pair(sdk.p50, sdk.p99)}` +
        (breakdown ? `; chat() → stream() ${pair(breakdown.p50, breakdown.p99)}` : '') +
        `; ${notes}`,
    };
  });
}

function relayFigures(rows: RelayRow[], notes: string): Figure[] {
  return rows.map((row) => ({
    section: 'relay',
    figure: `relay / bare Socket.IO, ${count(row.streams)} stream(s) × ${count(row.chunks)} tokens`,
    value: row.ratio.toFixed(2),
    budget: `≥ ${RELAY_BUDGET_RATIO.toFixed(2)}`,
    pass: row.ratio >= RELAY_BUDGET_RATIO,
    notes:
      `${count(row.relay.tokensPerSecond)} vs ${count(row.bare.tokensPerSecond)} tokens/s; ai:token events/stream ${row.relay.eventsPerStream.toFixed(0)} vs ` +
      `${row.bare.eventsPerStream.toFixed(0)}; median of ${row.rounds}; ${notes}`,
  }));
}

function bareRelayFigures(result: VersusBareResult, notes: string): Figure[] {
  const figures: Figure[] = [];
  const int = (value: number) => Math.round(value).toLocaleString('en-US');
  const two = (value: number) => value.toFixed(2);
  const label = (row: VersusBareRow) =>
    `${row.streams === 1 ? '1 stream' : `${count(row.streams)} streams`}${row.case === 'plain' ? '' : `, ${CASE_LABEL[row.case]}`}`;
  const rowNotes = (row: VersusBareRow) =>
    `median of ${row.rounds} rounds of ${count(row.conversations)}; load ${row.loadAverage[0].toFixed(1)}→${row.loadAverage[1].toFixed(1)}`;
  const largest = Math.max(...result.rows.filter((row) => row.case !== 'paced').map((row) => row.streams));
  for (const kind of ['plain', 'tool'] as const) {
    const rows = result.rows.filter((row) => row.case === kind);
    if (rows.length === 0) continue;
    for (const row of rows) {
      const budget = kind === 'tool' ? BARE_RELAY_BUDGET.ratioToolRound : BARE_RELAY_BUDGET.ratio;
      figures.push({
        section: 'bare-relay',
        figure: `service / bare relay throughput, ${label(row)}, ${result.answerTokens}-token answers`,
        value: `${two(row.ratio)} (${two(row.ratioRange[0])}–${two(row.ratioRange[1])})`,
        budget: `≥ ${budget.toFixed(2)}`,
        pass: row.ratio >= budget,
        notes:
          `${spreadText(row.service.tokensPerSecond)} vs ${spreadText(row.bare.tokensPerSecond)} tokens/s (median, min–max); ` +
          (row.sameShape
            ? `same-shape relay ${int(row.sameShape.tokensPerSecond.median)} tokens/s (service / it ${two(row.service.tokensPerSecond.median / row.sameShape.tokensPerSecond.median)}); `
            : '') +
          `first token p50 ${ms(row.service.firstTokenMs.p50, 1)} vs ${ms(row.bare.firstTokenMs.p50, 1)}; ${rowNotes(row)}`,
      });
    }
    for (const row of rows.filter((candidate) => candidate.streams === 1 || candidate.streams === largest)) {
      const one = row.streams === 1;
      const service = row.service.emitToUpstreamMs;
      const bare = row.bare.emitToUpstreamMs;
      const limit = one
        ? bare.p50 + BARE_RELAY_BUDGET.emitToUpstreamOneStreamExtraMs
        : bare.p50 * BARE_RELAY_BUDGET.emitToUpstreamBurstFactor;
      figures.push({
        section: 'bare-relay',
        figure: `emit → upstream request, ${one ? '1 stream' : `${count(row.streams)}-conversation burst`}${row.case === 'tool' ? ', tool round' : ''}: p50 / p99`,
        value: pair(service.p50, service.p99),
        budget: one
          ? `p50 ≤ bare + ${BARE_RELAY_BUDGET.emitToUpstreamOneStreamExtraMs} ms`
          : `p50 ≤ ${BARE_RELAY_BUDGET.emitToUpstreamBurstFactor} × bare`,
        pass: service.p50 <= limit,
        notes:
          `bare relay ${pair(bare.p50, bare.p99)}` +
          (one
            ? `; service − bare ${ms(service.p50 - bare.p50)}`
            : `; ${two(service.p50 / bare.p50)} × bare; emits spread over ${ms(row.service.emitSpreadMs, 0)}`) +
          `; ${rowNotes(row)}`,
      });
    }
    for (const row of rows.filter((candidate) => Object.keys(candidate.frameworks).length > 0)) {
      const frameworks = FRAMEWORK_NAMES.flatMap((name) => {
        const figures = row.frameworks[name];
        return figures ? [{ name, figures }] : [];
      });
      figures.push({
        section: 'bare-relay',
        figure: `frameworks / bare relay throughput, ${label(row)}: ${frameworks.map(({ name }) => name).join(' / ')}`,
        value: frameworks
          .map(({ figures: framework }) => two(framework.tokensPerSecond.median / row.bare.tokensPerSecond.median))
          .join(' / '),
        budget: '—',
        pass: null,
        notes:
          `service ${two(row.ratio)}; ` +
          frameworks
            .map(
              ({ name, figures: framework }) =>
                `${name} emit → upstream p50 ${ms(framework.emitToUpstreamMs.p50)}, first token p50 ${ms(framework.firstTokenMs.p50, 1)}, ` +
                `CPU ${two(framework.cpuMsPerConversation.median)} ms/conv`,
            )
            .join('; ') +
          `; service ${ms(row.service.emitToUpstreamMs.p50)}, ${ms(row.service.firstTokenMs.p50, 1)}, ${two(row.service.cpuMsPerConversation.median)} ms/conv; ${rowNotes(row)}`,
      });
      const aiSdk = row.frameworks['ai-sdk'];
      if (row.streams === 1 && aiSdk) {
        figures.push({
          section: 'bare-relay',
          figure: `emit → upstream request, 1 stream${row.case === 'tool' ? ', tool round' : ''}: service / AI SDK, p50`,
          value: pair(row.service.emitToUpstreamMs.p50, aiSdk.emitToUpstreamMs.p50),
          budget: 'service ≤ AI SDK',
          pass: row.service.emitToUpstreamMs.p50 <= aiSdk.emitToUpstreamMs.p50,
          notes: `bare relay ${ms(row.bare.emitToUpstreamMs.p50)}; ${rowNotes(row)}`,
        });
      }
    }
    const factors = rows.map((row) => row.service.cpuMsPerConversation.median / row.bare.cpuMsPerConversation.median);
    figures.push({
      section: 'bare-relay',
      figure: `service CPU per conversation / bare relay's, ${rows.map((row) => count(row.streams)).join(' / ')} stream(s)${kind === 'tool' ? ', tool round' : ''}`,
      value: factors.map((factor) => factor.toFixed(2)).join(' / '),
      budget: `≤ ${BARE_RELAY_BUDGET.cpuFactor.toFixed(2)}`,
      pass: factors.every((factor) => factor <= BARE_RELAY_BUDGET.cpuFactor),
      notes:
        `service ${rows.map((row) => spreadText(row.service.cpuMsPerConversation, 2)).join(' / ')} ms (background ${rows.map((row) => two(row.service.backgroundCpuMsPerConversation)).join(' / ')}), ` +
        `bare ${rows.map((row) => spreadText(row.bare.cpuMsPerConversation, 2)).join(' / ')} ms`,
    });
    const burst = rows.find((row) => row.streams === largest);
    const peak = result.peakRssBytes[kind];
    if (burst && peak?.service !== undefined) {
      figures.push({
        section: 'bare-relay',
        figure: `${count(largest)}-conversation burst${kind === 'tool' ? ', tool round' : ''}: service event-loop max delay / peak RSS`,
        value: `${int(burst.service.eventLoopDelayMaxMs.median)} ms / ${int(peak.service / 1024 / 1024)} MB`,
        budget: `≤ ${BARE_RELAY_BUDGET.eventLoopDelayMaxMs} ms / ≤ ${BARE_RELAY_BUDGET.peakRssMB} MB`,
        pass:
          burst.service.eventLoopDelayMaxMs.median <= BARE_RELAY_BUDGET.eventLoopDelayMaxMs &&
          peak.service <= BARE_RELAY_BUDGET.peakRssMB * 1024 * 1024,
        notes:
          `median of the rounds' maxima (worst ${int(burst.service.eventLoopDelayMaxMs.worst)} ms); bare relay ${int(burst.bare.eventLoopDelayMaxMs.median)} ms / ` +
          `${int((peak.bare ?? Number.NaN) / 1024 / 1024)} MB`,
      });
    }
  }
  for (const row of result.rows.filter((candidate) => candidate.case === 'paced')) {
    const service = row.service.firstTokenMs;
    const bare = row.bare.firstTokenMs;
    figures.push({
      section: 'bare-relay',
      figure: `first token, ${label(row)}: p50 / p99`,
      value: pair(service.p50, service.p99, 0),
      budget: `p50 ≤ ${BARE_RELAY_BUDGET.pacedFirstTokenFactor} × bare`,
      pass: service.p50 <= bare.p50 * BARE_RELAY_BUDGET.pacedFirstTokenFactor,
      notes:
        `bare relay ${pair(bare.p50, bare.p99, 0)} (${two(service.p50 / bare.p50)} × bare); throughput ${two(row.ratio)} × bare; ` +
        `CPU ${two(row.service.cpuMsPerConversation.median)} vs ${two(row.bare.cpuMsPerConversation.median)} ms/conv; ${rowNotes(row)}`,
    });
  }
  const errors = result.rows.reduce(
    (sum, row) =>
      sum +
      row.service.errors +
      row.bare.errors +
      (row.sameShape?.errors ?? 0) +
      Object.values(row.frameworks).reduce((frameworkSum, framework) => frameworkSum + framework.errors, 0),
    0,
  );
  const samples = [
    ...new Set(
      result.rows.flatMap((row) => [
        ...row.service.errorSamples,
        ...row.bare.errorSamples,
        ...(row.sameShape?.errorSamples ?? []),
        ...Object.values(row.frameworks).flatMap((framework) => framework.errorSamples),
      ]),
    ),
  ];
  figures.push({
    section: 'bare-relay',
    figure: 'service vs the relays: errors (wrong tokens or fullText, second terminal event, ai:error, no answer)',
    value: String(errors),
    budget: '0',
    pass: errors === 0,
    notes: samples.slice(0, 3).join('; ') || `every token of every conversation checked; ${notes}`,
  });
  return figures;
}

function stageFigures(result: ConversationStagesResult, notes: string): Figure[] {
  const kinds = [...new Set(result.rows.map((row) => row.case))];
  return kinds.flatMap((kind) => {
    const service = result.rows.find((row) => row.target === 'service' && row.case === kind);
    const bare = result.rows.find((row) => row.target === 'bare' && row.case === kind);
    if (!service || !bare) return [];
    const stageMs = (row: typeof service, stage: string) =>
      row.stages.find((entry) => entry.stage === stage)?.cpuMs ?? 0;
    const largest = service.stages
      .map((entry) => ({ stage: entry.stage, extra: entry.cpuMs - stageMs(bare, entry.stage) }))
      .sort((a, b) => b.extra - a.extra)
      .slice(0, 5);
    return [
      {
        section: 'stages' as const,
        figure: `CPU per conversation, one at a time${kind === 'tool' ? ', tool round' : ''}: service / bare relay`,
        value: pair(service.cpuMsPerConversation, bare.cpuMsPerConversation),
        budget: '—',
        pass: null,
        notes:
          `${(service.cpuMsPerConversation / bare.cpuMsPerConversation).toFixed(2)} ×; largest stages above the bare relay's: ` +
          `${largest.map((entry) => `${entry.stage} +${entry.extra.toFixed(2)}`).join(', ')} ms; ${notes}`,
      },
    ];
  });
}

function concurrencyFigures(result: ConcurrencyResult, notes: string): Figure[] {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const label = `${count(result.conversations)} conversations`;
  return [
    {
      section: 'concurrency',
      figure: `${label}: errors`,
      value: String(result.errors),
      budget: '0',
      pass: result.errors === 0,
      notes: `${result.errorSamples.join('; ') || `${result.answerTokens}-token answers, a new thread each`}; ${notes}`,
    },
    {
      section: 'concurrency',
      figure: `${label}: completion p50 / p99`,
      value: pair(result.completionMs.p50, result.completionMs.p99, 0),
      budget: '—',
      pass: null,
      notes: `first token: first ${ms(result.firstTokenMinMs, 0)}, p50 / p99 ${pair(result.firstTokenMs.p50, result.firstTokenMs.p99, 0)}; whole burst ${ms(result.burstMs, 0)}`,
    },
    {
      section: 'concurrency',
      figure: `${label}: service event-loop delay max / p99`,
      value: pair(result.service.eventLoopDelayMaxMs, result.service.eventLoopDelayP99Ms, 0),
      budget: '—',
      pass: null,
      notes: `during the burst; service CPU ${ms(result.service.cpuMsPerConversation)} per conversation`,
    },
    {
      section: 'concurrency',
      figure: `${label}: peak RSS of the service`,
      value: mb(result.service.peakRssBytes),
      budget: '—',
      pass: null,
      notes: `${mb(result.service.rssBeforeBytes)} before, ${count(result.conversations)} sockets open`,
    },
    {
      section: 'concurrency',
      figure: `${label}: memory per cached thread (in use)`,
      value: kb(result.service.retainedBytesPerThread),
      budget: `< ${THREAD_BUDGET_KB} KB`,
      pass: result.service.retainedBytesPerThread < THREAD_BUDGET_KB * 1024,
      notes: `service heap after GC, 1 exchange per thread; ${kb(result.service.releasedBytesPerSocket)} freed per closed socket`,
    },
  ];
}

function firstQuestionFigures(result: FirstQuestionResult, notes: string): Figure[] {
  const budget = FIRST_QUESTION_BUDGET;
  const nodes = count(result.nodes);
  const partial = (answer: { complete: boolean; searchMode: string }) =>
    `${answer.searchMode}${answer.complete ? ', indexes ready' : ', answered from what was ready (index still building)'}`;
  const stall = Math.max(result.import.health.max, result.build.health.max);
  const restartStall = result.restart.warmUp.health.max;
  const { memory, questions } = result;
  return [
    {
      section: 'first-question',
      figure: `${nodes} nodes: first context request right after the import`,
      value: ms(result.firstContext.ms, 0),
      budget: `< ${count(budget.firstContextMs)} ms`,
      pass: result.firstContext.status === 200 && result.firstContext.ms < budget.firstContextMs,
      notes: `${result.firstContext.status}, ${partial(result.firstContext)}, ${result.firstContext.nodes} nodes; ${notes}`,
    },
    {
      section: 'first-question',
      figure: `${nodes} nodes: context requests after the build, cache miss over HTTP, p50 / p95`,
      value: pair(questions.all.p50, questions.all.p95, 1),
      budget: `p95 < ${budget.p95Ms} ms`,
      pass: questions.all.p95 < budget.p95Ms && questions.incomplete === 0,
      notes: `service CPU per question ${questions.cpuMsPerQuestion.all.toFixed(1)} ms (main thread ${questions.cpuMsPerQuestion.mainThread.toFixed(1)} ms); ${questions.all.count} questions, half naming their workflow (p95 ${questions.named.p95.toFixed(1)} ms, others ${questions.unnamed.p95.toFixed(1)} ms); incomplete ${questions.incomplete}; ${notes}`,
    },
    {
      section: 'first-question',
      figure: `${nodes} nodes: slowest /health during the import and the index build`,
      value: ms(stall, 0),
      budget: `< ${budget.healthStallMs} ms`,
      pass: stall < budget.healthStallMs,
      notes: `${result.import.health.count + result.build.health.count} calls over ${count(result.import.durationMs + result.build.durationMs)} ms (every node embedded too), service CPU ${count(result.import.cpuMs.all + result.build.cpuMs.all)} ms, main thread ${count(result.import.cpuMs.mainThread + result.build.cpuMs.mainThread)} ms; service event-loop delay max ${count(Math.max(result.import.eventLoopDelayMaxMs, result.build.eventLoopDelayMaxMs))} ms; ${notes}`,
    },
    {
      section: 'first-question',
      figure: `${nodes} nodes: memory per 1,000 nodes (RSS after a full GC, graph searched and embedded)`,
      value: `${perThousandNodes(result, memory.rssBeforeBytes, memory.rssAfterBytes).toFixed(2)} MB`,
      budget: '—',
      pass: null,
      notes: `heap ${perThousandNodes(result, memory.heapBeforeBytes, memory.heapAfterBytes).toFixed(2)} MB, external ${perThousandNodes(result, memory.externalBeforeBytes, memory.externalAfterBytes).toFixed(2)} MB per 1,000 nodes`,
    },
    {
      section: 'first-question',
      figure: `${nodes} nodes, instance restarted on the file: first context request / slowest /health while it warms up`,
      value: `${ms(result.restart.firstContext.ms, 0)} / ${ms(restartStall, 0)}`,
      budget: `< ${count(budget.firstContextMs)} ms / < ${budget.healthStallMs} ms`,
      pass:
        result.restart.firstContext.status === 200 &&
        result.restart.firstContext.ms < budget.firstContextMs &&
        restartStall < budget.healthStallMs,
      notes: `${partial(result.restart.firstContext)}; listening after ${ms(result.restart.startMs, 0)}, warm-up ${ms(result.restart.warmUp.durationMs, 0)}; ${notes}`,
    },
  ];
}

function threadFigures(result: ThreadCacheMemoryResult, notes: string): Figure[] {
  return [
    {
      section: 'threads',
      figure: `memory per idle cached thread (${result.exchangesPerThread} exchanges)`,
      value: `${result.idleHeapKBPerThread.toFixed(1)} KB`,
      budget: `< ${THREAD_BUDGET_KB} KB`,
      pass: result.idleHeapKBPerThread < THREAD_BUDGET_KB,
      notes: `${result.hotHeapKBPerThread.toFixed(1)} KB in use; ${result.storedJsonKB} KB stored; ${notes}`,
    },
  ];
}

function contextFigures(result: ContextSizeResult, notes: string): Figure[] {
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  return result.comparisons.map((row) => ({
    section: 'context',
    figure: `TOON vs ${row.format}: fewer tokens`,
    value: percent(row.saving),
    budget: `≥ ${percent(TOON_BUDGET_SAVING)}`,
    pass: row.saving >= TOON_BUDGET_SAVING,
    notes: `${count(result.toonTokens)} vs ${count(row.jsonTokens)} tokens, ${result.questions} questions; median ${percent(row.medianSaving)}, min ${percent(row.minSaving)}; ${notes}`,
  }));
}

/** The large import's steps in the order of the summary: refused, accepted, first context (the first graph). */
function importFigures(result: LargeImportResult, notes: string): Figure[] {
  const [refused, accepted, firstContext] = result.steps;
  const mb = (bytes: number) => `${count(bytes / 1024 / 1024)} MB`;
  const nodes = count(result.nodes);
  return [
    {
      section: 'import',
      figure: `large import, ${nodes} nodes: service event-loop delay max, refused / accepted / first context`,
      value: `${count(refused.eventLoopDelayMaxMs)} / ${count(accepted.eventLoopDelayMaxMs)} / ${count(firstContext.eventLoopDelayMaxMs)} ms`,
      budget: '—',
      pass: null,
      notes: `slowest /health ${count(refused.health.max)} / ${count(accepted.health.max)} / ${count(firstContext.health.max)} ms; ${(result.bodyBytes / 1024 / 1024).toFixed(1)} MB body; ${notes}`,
    },
    {
      section: 'import',
      figure: `large import, ${nodes} nodes: time to refuse / to accept / first context`,
      value: `${count(refused.durationMs)} / ${count(accepted.durationMs)} / ${count(firstContext.durationMs)} ms`,
      budget: '—',
      pass: null,
      notes: 'embeddings computed in the background meanwhile (EMBEDDING_PROVIDER=local)',
    },
    {
      section: 'import',
      figure: `large import: service RSS before / peak / after ${count(result.memory.importedNodes)} imported nodes`,
      value: `${mb(result.memory.rssBeforeBytes)} / ${mb(result.memory.peakRssBytes)} / ${mb(result.memory.rssAfterBytes)}`,
      budget: '—',
      pass: null,
      notes: `heap after a full GC ${mb(result.memory.heapBeforeBytes)} before, ${mb(result.memory.heapAfterBytes)} after (indexes of the graphs searched last kept)`,
    },
  ];
}

/** No budget of its own: these calls sit inside the overhead and retrieval windows; reported to compare releases. */
function libraryFigures(result: HotPathResult, notes: string): Figure[] {
  const row = (prefix: string) => {
    const found = result.rows.find((candidate) => candidate.case.startsWith(prefix));
    if (!found) throw new Error(`no row "${prefix}"`);
    return found;
  };
  const us = (value: number) => `${value.toFixed(2)} µs`;
  const valid = row('validate propose_create_node with handles, valid');
  const invalid = row('validate propose_create_node, 2 problems');
  const line = row('log a line');
  const filtered = row('log call below LOG_LEVEL');
  return [
    {
      section: 'libraries',
      figure: 'tool-argument validation (ajv), propose_create_node: valid / 2 problems, CPU per call',
      value: `${valid.cpuMicrosPerCall.toFixed(2)} / ${us(invalid.cpuMicrosPerCall)}`,
      budget: '—',
      pass: null,
      notes: `search_nodes valid ${us(row('validate search_nodes').cpuMicrosPerCall)}; propose_batch valid ${us(row('validate propose_batch').cpuMicrosPerCall)}; ${notes}`,
    },
    {
      section: 'libraries',
      figure: 'log line (pino, info, 6 fields) to a pipe: in the call / CPU per line',
      value: `${line.microsPerCall.toFixed(2)} / ${us(line.cpuMicrosPerCall)}`,
      budget: '—',
      pass: null,
      notes: `CPU includes the asynchronous write; a call below LOG_LEVEL ${us(filtered.microsPerCall)}; ${notes}`,
    },
  ];
}

function memoryFigures(result: LongConversationResult, notes: string): Figure[] {
  const tokens = (values: number[]) => values.map(count).join(' / ');
  const turns = result.curve.map((point) => point.turn).join(' / ');
  const { recall, cost, ttft } = result;
  return [
    {
      section: 'memory',
      figure: `tokens sent per turn, ${result.turns}-turn thread, at turns ${turns}`,
      value: tokens(result.curve.map((point) => point.withMemory)),
      budget: '—',
      pass: null,
      notes: `full history ${tokens(result.curve.map((point) => point.fullHistory))}; all turns ${((result.totals.withMemory / result.totals.fullHistory) * 100).toFixed(0)} % of full history; ${notes}`,
    },
    {
      section: 'memory',
      figure: `fact stated at turn 3 in the context at turn ${recall.askTurn}`,
      value: recall.inContext ? 'yes' : 'no',
      budget: 'yes',
      pass: recall.inContext,
      notes: `recalled block ${recall.viaRecall}, summaries ${recall.viaSummaries}, history ${recall.viaHistory}`,
    },
    {
      section: 'memory',
      figure: 'memory cost per turn: summary calls / texts embedded',
      value: `${(cost.summaryCalls / result.turns).toFixed(2)} / ${(cost.textsEmbedded / result.turns).toFixed(2)}`,
      budget: '—',
      pass: null,
      notes: `${count(cost.summaryTokens / result.turns)} summary prompt tokens per turn; ${cost.records.turns} turns, ${cost.records.level1} level-1, ${cost.records.level2} level-2 records`,
    },
    {
      section: 'memory',
      figure: `time to first token after ${result.turns} turns, memory / no memory, p50`,
      value: pair(ttft.withMemory.p50, ttft.withoutMemory.p50, 1),
      budget: '—',
      pass: null,
      notes: `p95 ${pair(ttft.withMemory.p95, ttft.withoutMemory.p95, 1)}; ${ttft.requests} requests each, ${ttft.thinkMs} ms apart; memory on the request path p50 / p95 ${pair(result.requestPath.p50, result.requestPath.p95)}`,
    },
  ];
}

function prefixFigures(result: PromptPrefixResult, notes: string): Figure[] {
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  return result.rows.map((row) => ({
    section: 'prefix',
    figure: `prompt that is the previous request's prefix, ${row.turns}-turn thread, ${row.provider}`,
    value: percent(row.meanPrefixShare),
    budget: `≥ ${percent(PREFIX_TARGET_SHARE)}`,
    pass: row.meanPrefixShare >= PREFIX_TARGET_SHARE,
    notes: `min ${percent(row.minPrefixShare)}; cached tokens as the endpoint counts ${percent(row.cachedShare)}; ${notes}`,
  }));
}

function tracingFigures(result: TracingOverheadResult, notes: string): Figure[] {
  const { off, on } = result;
  return [
    {
      section: 'tracing',
      figure: 'chat with a tool round over REST, tracing on (OTLP/HTTP) / off, p50 / p99',
      value: `${(on.p50 / off.p50).toFixed(2)} / ${(on.p99 / off.p99).toFixed(2)}`,
      budget: '—',
      pass: null,
      notes: `off ${pair(off.p50, off.p99)}, on ${pair(on.p50, on.p99)}; ${result.spansExported} spans exported; ${notes}`,
    },
  ];
}

function scaleOutFigures(result: Partial<ScaleOutResult>, notes: string): Figure[] {
  const figures: Figure[] = (result.relay ?? []).map((row) => ({
    section: 'scale-out',
    figure: `relay with Redis / without, ${count(row.streams)} stream(s) × ${count(row.chunks)} tokens`,
    value: row.ratio.toFixed(2),
    budget: row.streams >= 100 ? `≥ ${SCALE_OUT_BUDGET_RATIO.toFixed(2)}` : '—',
    pass: row.streams >= 100 ? row.ratio >= SCALE_OUT_BUDGET_RATIO : null,
    notes:
      `median of ${row.rounds} paired rounds (${count(row.redis.tokensPerSecond)} vs ${count(row.plain.tokensPerSecond)} tokens/s); CPU per 1,000 tokens ` +
      `${row.redis.cpuMsPerThousandTokens.toFixed(1)} vs ${row.plain.cpuMsPerThousandTokens.toFixed(1)} ms (${row.cpuRatio.toFixed(2)}); Socket.IO Redis adapter + event log in Redis Streams; ${notes}`,
  }));
  if (result.paced) {
    const { redis, plain } = result.paced.cpuMsPerThousandEvents;
    figures.push({
      section: 'scale-out',
      figure: `event log CPU, ${result.paced.streams} streams paced at 10 ms: per 1,000 events, with / without Redis`,
      value: pair(redis, plain, 1),
      budget: '—',
      pass: null,
      notes: `${((redis / plain - 1) * 100).toFixed(1)} %; ${result.paced.eventsPerStream.redis.toFixed(0)} events per stream; CPU of the process running the service and the scripted server; ${notes}`,
    });
  }
  if (result.rejoin) {
    const { redis, memory } = result.rejoin;
    figures.push({
      section: 'scale-out',
      figure: `rejoin on another instance (Redis): first event p50 / p95`,
      value: pair(redis.firstEventMs.p50, redis.firstEventMs.p95),
      budget: '—',
      pass: null,
      notes: `whole replay of ${result.rejoin.eventsReplayed} events p50 / p95 ${pair(redis.terminalMs.p50, redis.terminalMs.p95)}; same instance without Redis ${pair(memory.firstEventMs.p50, memory.firstEventMs.p95)}; ${notes}`,
    });
  }
  if (result.memory) {
    figures.push({
      section: 'scale-out',
      figure: 'Redis memory per active stream',
      value: `${(result.memory.bytesPerStream / 1024).toFixed(1)} KB`,
      budget: '—',
      pass: null,
      notes: `MEMORY USAGE, ${result.memory.eventsPerStream} events (${result.memory.bytesPerEvent.toFixed(0)} B/event); used_memory +${(result.memory.usedMemoryGrowthPerStream / 1024).toFixed(1)} KB per stream over ${result.memory.streams}; ${notes}`,
    });
  }
  return figures;
}

function errorFigure(section: SectionName, error: string): Figure {
  return {
    section,
    figure: `${section}: the section crashed`,
    value: 'error',
    budget: '—',
    pass: false,
    notes: error.split('\n')[0],
  };
}

async function runSection<T>(
  name: SectionName,
  run: () => Promise<T>,
  detail: (result: T) => string[],
): Promise<SectionRun<T>> {
  const start = os.loadavg();
  const started = performance.now();
  console.log(`\n## ${name} (load average ${load(start)})`);
  try {
    const result = await run();
    for (const line of detail(result)) console.log(line);
    return { result, durationMs: performance.now() - started, loadAverage: { start, end: os.loadavg() } };
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.log(`FAILED: ${message}`);
    return { error: message, durationMs: performance.now() - started, loadAverage: { start, end: os.loadavg() } };
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

async function main(): Promise<void> {
  const only = argumentValue('only')?.split(',') as SectionName[] | undefined;
  const unknown = only?.filter((name) => !SECTIONS.includes(name));
  if (unknown?.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; sections: ${SECTIONS.join(', ')}`);
  const selected = new Set<SectionName>(only ?? SECTIONS);
  if (!(globalThis as { gc?: unknown }).gc) selected.delete('threads');
  const timestamp = new Date().toISOString();
  const startLoad = os.loadavg();
  const started = performance.now();
  console.log(
    `npm run bench: ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), node ${process.version}, load average ${load(startLoad)} (1 / 5 / 15 min)`,
  );

  const runs: Partial<Record<SectionName, SectionRun<unknown>>> = {};
  const figures: Figure[] = [];
  const add = <T>(name: SectionName, run: SectionRun<T>, toFigures: (result: T, notes: string) => Figure[]) => {
    runs[name] = run;
    const notes = `load ${run.loadAverage.start[0].toFixed(1)}→${run.loadAverage.end[0].toFixed(1)}`;
    figures.push(
      ...(run.result !== undefined ? toFigures(run.result, notes) : [errorFigure(name, run.error ?? 'unknown error')]),
    );
  };

  // First, on a clean heap: it measures retained memory with full GCs.
  if (selected.has('threads')) {
    add(
      'threads',
      await runSection(
        'threads',
        () => runThreadCacheMemoryBench(),
        (result) => [JSON.stringify(result)],
      ),
      threadFigures,
    );
  } else if (!(globalThis as { gc?: unknown }).gc) {
    console.log('\n(threads skipped: run node with --expose-gc)');
  }
  if (selected.has('overhead'))
    add('overhead', await runSection('overhead', () => runAgentOverheadBench(), agentOverheadTable), overheadFigures);
  if (selected.has('retrieval'))
    add('retrieval', await runSection('retrieval', () => runRetrievalBench(), retrievalTable), retrievalFigures);
  if (selected.has('first-question'))
    add(
      'first-question',
      await runSection('first-question', () => runLargeGraphFirstQuestionBench(), largeGraphFirstQuestionTable),
      firstQuestionFigures,
    );
  if (selected.has('relay'))
    add(
      'relay',
      await runSection('relay', () => runSocketRelayBench({ configs: RELAY_CONFIGS, rounds: 3 }), socketRelayTable),
      relayFigures,
    );
  if (selected.has('bare-relay'))
    add(
      'bare-relay',
      await runSection('bare-relay', () => runServiceVsBareRelayBench(), serviceVsBareTable),
      bareRelayFigures,
    );
  if (selected.has('stages'))
    add(
      'stages',
      await runSection('stages', () => runConversationStagesBench(), conversationStagesTable),
      stageFigures,
    );
  if (selected.has('concurrency')) {
    add(
      'concurrency',
      await runSection('concurrency', () => runConcurrencyBench({ conversations: CONVERSATIONS }), concurrencySummary),
      concurrencyFigures,
    );
  }
  if (selected.has('context'))
    add('context', await runSection('context', () => runContextSizeBench(), contextSizeTable), contextFigures);
  if (selected.has('import'))
    add('import', await runSection('import', () => runLargeImportBench(), largeImportTable), importFigures);
  if (selected.has('libraries'))
    add(
      'libraries',
      await runSection('libraries', () => runHotPathLibrariesBench(), hotPathLibrariesTable),
      libraryFigures,
    );
  if (selected.has('scale-out'))
    add(
      'scale-out',
      await runSection('scale-out', () => runScaleOutBench({ rounds: 3, rejoins: 100 }), scaleOutTable),
      scaleOutFigures,
    );
  if (selected.has('memory'))
    add('memory', await runSection('memory', () => runLongConversationBench(), longConversationTable), memoryFigures);
  if (selected.has('prefix'))
    add('prefix', await runSection('prefix', () => runPromptPrefixBench(), promptPrefixTable), prefixFigures);
  if (selected.has('surfaces'))
    add('surfaces', await runSection('surfaces', () => runSurfacesBench(), surfacesTable), surfacesFigures);
  if (selected.has('tracing'))
    add('tracing', await runSection('tracing', () => runTracingOverheadBench(), tracingOverheadTable), tracingFigures);

  figures.sort((a, b) => SUMMARY_ORDER.indexOf(a.section) - SUMMARY_ORDER.indexOf(b.section));
  const endLoad = os.loadavg();
  const durationMs = performance.now() - started;
  const verdict = (pass: boolean | null) => (pass === null ? 'info' : pass ? 'PASS' : 'FAIL');
  console.log(
    `\n## Summary (${(durationMs / 1000).toFixed(0)} s after the build; load average ${load(startLoad)} at start, ${load(endLoad)} at end)`,
  );
  for (const line of formatTable(
    ['figure', 'value', 'budget', 'result', 'notes'],
    figures.map((figure) => [figure.figure, figure.value, figure.budget, verdict(figure.pass), figure.notes]),
    [0, 2, 3, 4],
  )) {
    console.log(line);
  }
  console.log(
    `load a→b: 1-minute load average at the start and end of the section (${os.cpus().length} CPUs). cpu: CPU time of the measuring process over the same window ` +
      '(overhead: of the service process, which runs alone, until the upstream request is written). ' +
      'bare SDK: the openai SDK in a process of its own sending the same request body to the same server, in this run. chat() → stream(): AskQuestion entry to the provider call (in the bench process).',
  );
  const failed = figures.filter((figure) => figure.pass === false);
  console.log(
    `\n${figures.filter((figure) => figure.pass === true).length} passed, ${failed.length} failed, ${figures.filter((figure) => figure.pass === null).length} reported without a budget`,
  );

  const sections: Record<string, unknown> = {};
  for (const [name, run] of Object.entries(runs)) sections[name] = run?.result ?? { error: run?.error };
  const output = {
    timestamp,
    durationMs: Math.round(durationMs),
    command: only ? `run-bench --only ${only.join(',')}` : 'npm run bench',
    machine: { ...machine(), loadAverageAtStart: startLoad, loadAverageAtEnd: endLoad },
    sectionRuns: Object.fromEntries(
      Object.entries(runs).map(([name, run]) => [
        name,
        { durationMs: Math.round(run?.durationMs ?? 0), loadAverage: run?.loadAverage },
      ]),
    ),
    figures,
    sections,
  };
  const out = argumentValue('out') ?? (only ? undefined : repositoryPath('bench', 'results.json'));
  if (out) {
    writeFileSync(out, `${JSON.stringify(output, null, 2)}\n`);
    console.log(`results written to ${out}`);
  }
  if (Object.values(runs).some((run) => run?.error)) process.exitCode = 1;
}

main()
  .then(() => process.exit())
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
