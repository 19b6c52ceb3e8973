import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  halfOf,
  QUESTION_KINDS,
  sizeBandOf,
  SIZE_BANDS,
  loadQuestionSet,
} from '../../src/cli/retrieval-eval.questions';
import { GraphDocument } from '../../src/graph/graph.types';
import { SearchTextTokenizer } from '../../src/graph/search/search-text.tokenizer';
import { describeWithSharedFixtures, sharedFixturePath } from '../support/shared-fixtures';

const questionSet = loadQuestionSet(path.join(__dirname, 'questions.json'));
const { questions } = questionSet;

function loadGraph(graphKey: string): GraphDocument {
  return JSON.parse(
    readFileSync(sharedFixturePath(questionSet.fixturesDir, `${graphKey}.json`), 'utf8'),
  ) as GraphDocument;
}

describe('retrieval evaluation questions (the set itself)', () => {
  it('has at least 300 questions with unique ids, of the six kinds, in English or French', () => {
    expect(questions.length).toBeGreaterThanOrEqual(300);
    expect(new Set(questions.map((question) => question.id)).size).toBe(questions.length);
    for (const question of questions) {
      expect(QUESTION_KINDS).toContain(question.kind);
      expect(['en', 'fr']).toContain(question.lang);
      expect(question.relevant.length).toBeGreaterThan(0);
      expect(new Set(question.relevant).size).toBe(question.relevant.length);
    }
    for (const kind of QUESTION_KINDS)
      expect(questions.filter((question) => question.kind === kind).length).toBeGreaterThanOrEqual(30);
    expect(questions.filter((question) => question.lang === 'fr').length / questions.length).toBeGreaterThanOrEqual(
      0.2,
    );
  });

  it('splits by question id into two halves of similar size, each with every kind and both languages', () => {
    const tune = questions.filter((question) => halfOf(question.id) === 'tune');
    const test = questions.filter((question) => halfOf(question.id) === 'test');
    for (const half of [tune, test]) {
      expect(half.length / questions.length).toBeGreaterThan(0.4);
      for (const kind of QUESTION_KINDS) expect(half.some((question) => question.kind === kind)).toBe(true);
      expect(half.filter((question) => question.lang === 'fr').length).toBeGreaterThanOrEqual(30);
    }
    // The split is a pure function of the id: pinned so that it can never move under the results.
    expect(['q001', 'q002', 'q003', 'q004'].map(halfOf)).toEqual(['tune', 'test', 'tune', 'tune']);
  });
});

// Guards the labels against the fixtures: a renamed fixture or a mistyped key would silently lower recall.
describeWithSharedFixtures('retrieval evaluation questions (against the workflow fixtures)', () => {
  const graphKeys = [...new Set(questions.map((question) => question.graph))];
  const graphs = new Map(graphKeys.map((graphKey) => [graphKey, loadGraph(graphKey)]));

  it('labels only nodes that exist in their graph', () => {
    const unknown: Array<{ id: string; missing: string[] }> = [];
    for (const question of questions) {
      const document = graphs.get(question.graph) as GraphDocument;
      expect(document.graph._key).toBe(question.graph);
      const nodeKeys = new Set(document.nodes.map((node) => node._key));
      const missing = question.relevant.filter((key) => !nodeKeys.has(key));
      if (missing.length > 0) unknown.push({ id: question.id, missing });
    }
    expect(unknown).toEqual([]);
  });

  it('covers every size band with at least 40 questions, and most of the real workflows', () => {
    expect(graphKeys.length).toBeGreaterThanOrEqual(60);
    for (const band of SIZE_BANDS) {
      const inBand = questions.filter(
        (question) => sizeBandOf((graphs.get(question.graph) as GraphDocument).nodes.length) === band.label,
      );
      expect({ band: band.label, enough: inBand.length >= 40 }).toEqual({ band: band.label, enough: true });
    }
  });

  it('writes paraphrases that share no word with the names of the nodes they look for (key, type, type display name)', () => {
    const tokenizer = new SearchTextTokenizer();
    const violations: Array<{ id: string; shared: string[] }> = [];
    for (const question of questions.filter((candidate) => candidate.kind === 'paraphrase')) {
      const document = graphs.get(question.graph) as GraphDocument;
      const configs = new Map(document.nodeConfigs.map((config) => [config._key, config]));
      const questionTokens = new Set(tokenizer.tokenize(question.question));
      const shared = question.relevant.flatMap((key) => {
        const node = document.nodes.find((candidate) => candidate._key === key);
        const names = [key, node?.type ?? '', configs.get(node?.type ?? '')?.displayName ?? ''].join(' ');
        return tokenizer.tokenize(names).filter((token) => questionTokens.has(token));
      });
      if (shared.length > 0) violations.push({ id: question.id, shared });
    }
    expect(violations).toEqual([]);
  });
});
