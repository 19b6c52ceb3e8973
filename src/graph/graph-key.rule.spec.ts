import { GRAPH_KEY_MAX_LENGTH, graphKeyProblem } from './graph-key.rule';

describe(graphKeyProblem.name, () => {
  it.each(['nba-workflow', 'a', 'team graph:v1.2', 'k'.repeat(GRAPH_KEY_MAX_LENGTH), '...', 'ünïcode-グラフ', 'a..b'])(
    'accepts %s',
    (key) => {
      expect(graphKeyProblem(key)).toBeNull();
    },
  );

  it.each([
    ['', 'must be a non-empty string'],
    [42, 'must be a non-empty string'],
    ['k'.repeat(GRAPH_KEY_MAX_LENGTH + 1), `must be at most ${GRAPH_KEY_MAX_LENGTH} characters`],
    ['a\u0000b', 'must not contain control characters'],
    ['line\nbreak', 'must not contain control characters'],
    ['../etc', 'must not contain / or \\'],
    ['a/b', 'must not contain / or \\'],
    ['..\\x', 'must not contain / or \\'],
    ['.', 'must not be . or ..'],
    ['..', 'must not be . or ..'],
  ])('refuses %j: %s', (key, problem) => {
    expect(graphKeyProblem(key)).toBe(problem);
  });
});
