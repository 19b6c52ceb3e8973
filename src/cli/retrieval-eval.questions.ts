import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The six kinds of question of the evaluation set (test/retrieval-eval/README.md). */
export const QUESTION_KINDS = ['name', 'service', 'parameter', 'flow', 'neighbour', 'paraphrase'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

export interface EvalQuestion {
  id: string;
  /** Fixture file name without .json, which is also the graph's _key. */
  graph: string;
  kind: QuestionKind;
  lang: 'en' | 'fr';
  /** The question is misspelt on purpose. */
  typo?: boolean;
  question: string;
  /** Node keys a good retriever puts in the context. */
  relevant: string[];
}

export interface EvalQuestionSet {
  fixturesDir: string;
  questions: EvalQuestion[];
}

/** The half a question belongs to: `tune` may be looked at while improving retrieval, `test` never is. */
export type EvalHalf = 'tune' | 'test';

export function loadQuestionSet(file: string): EvalQuestionSet {
  return JSON.parse(readFileSync(file, 'utf8')) as EvalQuestionSet;
}

/**
 * The half of a question, fixed by its id alone (first byte of SHA-256 of the id, even = tune), so
 * the split never depends on results, on the order of the file or on questions added later.
 */
export function halfOf(questionId: string): EvalHalf {
  return createHash('sha256').update(questionId).digest()[0] % 2 === 0 ? 'tune' : 'test';
}

/** Size bands of the graphs the set reports on separately. */
export const SIZE_BANDS: ReadonlyArray<{ label: string; min: number; max: number }> = [
  { label: 'graphs of 1-19 nodes', min: 1, max: 19 },
  { label: 'graphs of 20-39 nodes', min: 20, max: 39 },
  { label: 'graphs of 40-79 nodes', min: 40, max: 79 },
  { label: 'graphs of 80-150 nodes', min: 80, max: 150 },
];

export function sizeBandOf(nodeCount: number): string {
  return (
    SIZE_BANDS.find((band) => nodeCount >= band.min && nodeCount <= band.max)?.label ?? `graphs of ${nodeCount} nodes`
  );
}

/** A question asked on a union of workflows: it names its workflow, as a user of a whole workspace would. */
export function unionQuestionText(question: EvalQuestion, workflowName: string): string {
  return `[${workflowName}] ${question.question}`;
}
