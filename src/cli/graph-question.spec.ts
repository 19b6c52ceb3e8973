import { DEMO_WORKSPACE } from '../graph/demo/nba-workflow.demo';
import { parseGraphQuestion } from './graph-question';

describe(parseGraphQuestion.name, () => {
  it('joins the words of the question, defaults the workspace to the demo one and accepts the command own options', () => {
    const { args, question } = parseGraphQuestion(
      ['--graph', 'nba-workflow', '--role=editor', 'what', 'does', 'fetch-api', 'do'],
      ['role'],
    );
    expect(question).toEqual({ graphKey: 'nba-workflow', workspace: DEMO_WORKSPACE, text: 'what does fetch-api do' });
    expect(args.option('role')).toBe('editor');
    expect(parseGraphQuestion(['--graph', 'g', '--workspace', 'acme', 'why']).question.workspace).toBe('acme');
  });

  it.each([
    [['what', 'is', 'this'], 'A graph (--graph KEY) and a question are required'],
    [['--graph', 'nba-workflow'], 'A graph (--graph KEY) and a question are required'],
    [['--graph', 'g', '--role', 'admin', 'why'], 'Unknown option --role'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseGraphQuestion(argv)).toThrow(message);
  });
});
