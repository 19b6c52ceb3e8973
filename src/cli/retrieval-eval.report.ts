import { mean, recallAtK } from './retrieval-eval.metrics';
import { EvalHalf, halfOf, QUESTION_KINDS, sizeBandOf, SIZE_BANDS } from './retrieval-eval.questions';
import { QuestionResult } from './retrieval-eval.runner';

/** Rank cut-off of the main recall figure. */
export const RECALL_CUTOFF = 10;
/** Rank cut-off of the strict one: what the model reads first. */
export const TOP_CUTOFF = 5;

export interface GroupScores {
  count: number;
  /** Mean share of the labelled nodes among the first 5 context nodes. */
  recallAt5: number;
  /** Mean share of the labelled nodes among the first 10 context nodes. */
  recallAt10: number;
  /** Mean share of the labelled nodes anywhere in the context (at most maxNodes nodes). */
  recallAtContext: number;
}

export interface ReportGroup {
  label: string;
  select: (result: QuestionResult) => boolean;
}

const KIND_LABELS: Record<(typeof QUESTION_KINDS)[number], string> = {
  name: 'exact names',
  service: 'services used',
  parameter: 'parameters',
  flow: 'flow',
  neighbour: 'neighbours',
  paraphrase: 'paraphrases',
};

/** The groups of the report: per graph (all, kinds, languages, size bands, misspelt), then the union. */
export function reportGroups(): ReportGroup[] {
  const onGraph = (select: (result: QuestionResult) => boolean) => (result: QuestionResult) =>
    result.scope === 'graph' && select(result);
  const onUnion = (select: (result: QuestionResult) => boolean) => (result: QuestionResult) =>
    result.scope === 'union' && select(result);
  return [
    { label: 'all', select: onGraph(() => true) },
    ...QUESTION_KINDS.map((kind) => ({
      label: KIND_LABELS[kind],
      select: onGraph((result) => result.question.kind === kind),
    })),
    { label: 'English', select: onGraph((result) => result.question.lang === 'en') },
    { label: 'French', select: onGraph((result) => result.question.lang === 'fr') },
    { label: 'misspelt', select: onGraph((result) => result.question.typo === true) },
    ...SIZE_BANDS.map((band) => ({
      label: band.label,
      select: onGraph((result) => sizeBandOf(result.workflowNodes) === band.label),
    })),
    { label: 'union, all', select: onUnion(() => true) },
    ...QUESTION_KINDS.map((kind) => ({
      label: `union, ${KIND_LABELS[kind]}`,
      select: onUnion((result) => result.question.kind === kind),
    })),
    { label: 'union, English', select: onUnion((result) => result.question.lang === 'en') },
    { label: 'union, French', select: onUnion((result) => result.question.lang === 'fr') },
  ];
}

export function scoreGroup(results: readonly QuestionResult[]): GroupScores {
  return {
    count: results.length,
    recallAt5: mean(results.map((result) => recallAtK(result.ranked, result.relevant, TOP_CUTOFF))),
    recallAt10: mean(results.map((result) => recallAtK(result.ranked, result.relevant, RECALL_CUTOFF))),
    recallAtContext: mean(results.map((result) => recallAtK(result.ranked, result.relevant, result.ranked.length))),
  };
}

/** Rows of the report: one per non-empty group, the scores of each half asked for. */
export function reportTable(results: readonly QuestionResult[], halves: readonly EvalHalf[]): string[][] {
  const header = [
    'group',
    ...halves.flatMap((half) => [
      `${half} n`,
      `${half} R@${TOP_CUTOFF}`,
      `${half} R@${RECALL_CUTOFF}`,
      `${half} R@ctx`,
    ]),
  ];
  const rows: string[][] = [header];
  for (const group of reportGroups()) {
    const members = results.filter(group.select);
    if (members.length === 0) continue;
    rows.push([
      group.label,
      ...halves.flatMap((half) => {
        const scores = scoreGroup(members.filter((result) => halfOf(result.question.id) === half));
        return [
          String(scores.count),
          scores.recallAt5.toFixed(3),
          scores.recallAt10.toFixed(3),
          scores.recallAtContext.toFixed(3),
        ];
      }),
    ]);
  }
  return rows;
}

export function formatTable(rows: readonly string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A question whose context misses a labelled node, for --verbose. */
export function describeMiss(result: QuestionResult): string | null {
  const missing = result.relevant.filter((key) => !result.ranked.includes(key));
  const late = result.relevant.filter((key) => {
    const rank = result.ranked.indexOf(key);
    return rank >= RECALL_CUTOFF;
  });
  if (missing.length === 0 && late.length === 0) return null;
  const { question } = result;
  const rankOf = (key: string) => `${key}#${result.ranked.indexOf(key) + 1}`;
  return (
    `[${result.scope} ${question.id} ${question.kind}/${question.lang}] ${question.graph}: ${question.question}\n` +
    (missing.length > 0 ? `  missing: ${missing.join(', ')}\n` : '') +
    (late.length > 0 ? `  after rank ${RECALL_CUTOFF}: ${late.map(rankOf).join(', ')}\n` : '') +
    `  context: ${result.ranked.join(', ')}`
  );
}
