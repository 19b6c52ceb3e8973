import { CliArguments } from './cli-arguments';

const spec = { flags: ['force'], options: ['graph', 'role'], settings: ['batch', 'delay'], maxPositionals: 5 };

describe(CliArguments.name, () => {
  it('reads flags, options (spaced or with =), settings and positional words', () => {
    const args = CliArguments.parse(
      ['--force', '--graph', 'nba', '--role=editor', 'batch=20', 'what', 'is', 'this'],
      spec,
    );
    expect(args.flag('force')).toBe(true);
    expect(args.option('graph')).toBe('nba');
    expect(args.option('role')).toBe('editor');
    expect(args.integerSetting('batch', 100)).toBe(20);
    expect(args.integerSetting('delay', 100)).toBe(100);
    expect(args.positionals).toEqual(['what', 'is', 'this']);
  });

  it.each([
    [['--forse'], 'Unknown option --forse'],
    [['--graph'], '--graph needs a value'],
    [['size=3'], 'Unknown setting size='],
    [['--force=yes'], 'Unknown option --force=yes'],
  ])('refuses %j', (argv, message) => {
    expect(() => CliArguments.parse(argv, spec)).toThrow(message);
  });

  it('takes every word after -- as a positional, dashes and = included', () => {
    const args = CliArguments.parse(['--graph', 'nba', '--', '--force', 'batch=3', '-x'], spec);
    expect(args.flag('force')).toBe(false);
    expect(args.integerSetting('batch', 100)).toBe(100);
    expect(args.positionals).toEqual(['--force', 'batch=3', '-x']);
    expect(() => CliArguments.parse(['-x'], spec)).toThrow('Unknown option -x');
  });

  it('refuses a malformed number and too many positionals', () => {
    expect(() => CliArguments.parse(['batch=ten'], spec).integerSetting('batch', 1)).toThrow(
      'batch= needs a non-negative integer',
    );
    expect(() => CliArguments.parse(['a'], { flags: ['force'] })).toThrow('Unexpected argument "a"');
  });
});
