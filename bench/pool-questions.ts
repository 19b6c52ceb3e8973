import { GraphDocument } from '../src/graph/graph.types';
import { seededRandom } from '../test/support/seeded-random';

const TEMPLATES = [
  (words: string) => words,
  (words: string) => `what does the ${words} node do?`,
  (words: string) => `${words} error handling`,
];

/**
 * Questions about a pool graph (bench/workflow-pool.graph-builder.ts): the words of randomly chosen
 * node keys ("send slack message"), some phrased as questions. Deterministic for a seed.
 */
export function poolQuestions(document: GraphDocument, count: number, seed: number): string[] {
  const next = seededRandom(seed);
  const questions: string[] = [];
  while (questions.length < count) {
    const node = document.nodes[Math.floor(next() * document.nodes.length)];
    const words = node._key
      .replace(/^s\d+-/, '')
      .replace(/[-_.]+/g, ' ')
      .replace(/\d+/g, ' ')
      .trim();
    if (words) questions.push(TEMPLATES[questions.length % TEMPLATES.length](words));
  }
  return questions;
}
