import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describeWithSharedFixtures, sharedFixturePath } from '../support/shared-fixtures';

interface EvalQuestion {
  graph: string;
  style: 'lexical' | 'paraphrase' | 'french' | 'typo';
  question: string;
  relevant: string[];
}

const questionSet = JSON.parse(readFileSync(path.join(__dirname, 'questions.json'), 'utf8')) as {
  fixturesDir: string;
  questions: EvalQuestion[];
};

function loadGraph(graphKey: string): { graph: { _key: string }; nodes: Array<{ _key: string }> } {
  return JSON.parse(readFileSync(sharedFixturePath(questionSet.fixturesDir, `${graphKey}.json`), 'utf8'));
}

// Guards the labels themselves: a renamed fixture or a mistyped key would silently lower recall.
describeWithSharedFixtures('retrieval evaluation questions', () => {
  const graphKeys = [...new Set(questionSet.questions.map((question) => question.graph))];

  it('covers at least 5 graphs of 30 or more nodes with 8+ questions each', () => {
    expect(graphKeys.length).toBeGreaterThanOrEqual(5);
    for (const graphKey of graphKeys) {
      expect(loadGraph(graphKey).nodes.length).toBeGreaterThanOrEqual(30);
      expect(questionSet.questions.filter((question) => question.graph === graphKey).length).toBeGreaterThanOrEqual(8);
    }
  });

  it('labels only nodes that exist in their graph', () => {
    for (const graphKey of graphKeys) {
      const document = loadGraph(graphKey);
      expect(document.graph._key).toBe(graphKey);
      const nodeKeys = new Set(document.nodes.map((node) => node._key));
      for (const question of questionSet.questions.filter((candidate) => candidate.graph === graphKey)) {
        expect(question.relevant.length).toBeGreaterThan(0);
        expect(question.relevant.filter((key) => !nodeKeys.has(key))).toEqual([]);
      }
    }
  });

  it('mixes phrasings: own words, paraphrases, French and typos', () => {
    const styles = new Set(questionSet.questions.map((question) => question.style));
    expect([...styles].sort()).toEqual(['french', 'lexical', 'paraphrase', 'typo']);
  });
});
