import { describeMiss, reportTable, scoreGroup } from './retrieval-eval.report';
import { EvalQuestion } from './retrieval-eval.questions';
import { QuestionResult } from './retrieval-eval.runner';

const question = (id: string, extra: Partial<EvalQuestion> = {}): EvalQuestion => ({
  id,
  graph: 'g',
  kind: 'flow',
  lang: 'en',
  question: `question ${id}`,
  relevant: ['a', 'b'],
  ...extra,
});
const result = (q: EvalQuestion, ranked: string[], extra: Partial<QuestionResult> = {}): QuestionResult => ({
  question: q,
  scope: 'graph',
  graphNodes: 30,
  workflowNodes: 30,
  relevant: q.relevant,
  ranked,
  searchMode: 'bm25',
  durationMs: 1,
  ...extra,
});
// q001 and q003 are in the tuning half, q002 in the test half (halfOf).
const ranked12 = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9', 'x10', 'b', 'a'];

describe('retrieval evaluation report', () => {
  it('scores recall among the first 5, the first 10 and over the whole context', () => {
    const scores = scoreGroup([
      result(question('q001'), ['a', ...ranked12.slice(0, 11)]),
      result(question('q003'), ranked12),
    ]);
    expect(scores).toEqual({ count: 2, recallAt5: 0.25, recallAt10: 0.25, recallAtContext: 1 });
  });

  it('reports each group per half, leaving out groups with no question', () => {
    const results = [
      result(question('q001', { lang: 'fr' }), ['a', 'b']),
      result(question('q002'), ['a']),
      result(question('q001', { lang: 'fr' }), ['s1-a'], {
        scope: 'union',
        relevant: ['s1-a', 's1-b'],
        workflowNodes: 30,
        graphNodes: 5000,
      }),
    ];
    const rows = reportTable(results, ['tune', 'test']);
    expect(rows[0]).toEqual([
      'group',
      'tune n',
      'tune R@5',
      'tune R@10',
      'tune R@ctx',
      'test n',
      'test R@5',
      'test R@10',
      'test R@ctx',
    ]);
    const byLabel = new Map(rows.slice(1).map((row) => [row[0], row.slice(1)]));
    expect(byLabel.get('all')).toEqual(['1', '1.000', '1.000', '1.000', '1', '0.500', '0.500', '0.500']);
    expect(byLabel.get('French')).toEqual(['1', '1.000', '1.000', '1.000', '0', '0.000', '0.000', '0.000']);
    expect(byLabel.get('graphs of 20-39 nodes')?.[0]).toBe('1');
    expect(byLabel.get('union, all')).toEqual(['1', '0.500', '0.500', '0.500', '0', '0.000', '0.000', '0.000']);
    expect(byLabel.has('paraphrases')).toBe(false);
    expect(byLabel.has('graphs of 80-150 nodes')).toBe(false);
  });

  it('describes a question whose context misses a labelled node or has it after rank 10', () => {
    expect(describeMiss(result(question('q001'), ['a', 'b']))).toBeNull();
    const miss = describeMiss(result(question('q001'), ranked12.slice(0, 11)));
    expect(miss).toContain('missing: a');
    expect(miss).toContain('after rank 10: b#11');
  });
});
