/** Which arguments a command accepts: boolean flags, flags with a value, `name=value` settings. */
export interface CliArgumentSpec {
  flags?: string[];
  options?: string[];
  settings?: string[];
  /** Most positional arguments (words of a question are joined by the command). Default 0. */
  maxPositionals?: number;
}

/**
 * A command line parsed against its spec: `--force`, `--graph KEY` or `--graph=KEY`, `batch=100`,
 * and positional words. Anything the spec does not name is an error (a typo must not be ignored).
 */
export class CliArguments {
  private constructor(
    private readonly flagSet: ReadonlySet<string>,
    private readonly optionValues: ReadonlyMap<string, string>,
    private readonly settingValues: ReadonlyMap<string, string>,
    readonly positionals: string[],
  ) {}

  /** Throws an Error whose message names the offending argument. */
  static parse(argv: readonly string[], spec: CliArgumentSpec): CliArguments {
    const flags = new Set<string>();
    const options = new Map<string, string>();
    const settings = new Map<string, string>();
    const positionals: string[] = [];
    for (let index = 0; index < argv.length; index += 1) {
      const argument = argv[index];
      if (argument.startsWith('--')) {
        const [name, inline] = splitOnce(argument.slice(2), '=');
        if (spec.flags?.includes(name) && inline === undefined) {
          flags.add(name);
        } else if (spec.options?.includes(name)) {
          const value = inline ?? argv[++index];
          if (value === undefined || value === '') throw new Error(`--${name} needs a value`);
          options.set(name, value);
        } else {
          throw new Error(`Unknown option ${argument}`);
        }
      } else if (/^[a-z][a-z0-9_-]*=/i.test(argument)) {
        const [name, value] = splitOnce(argument, '=');
        if (!spec.settings?.includes(name)) throw new Error(`Unknown setting ${name}=`);
        settings.set(name, value ?? '');
      } else {
        positionals.push(argument);
      }
    }
    if (positionals.length > (spec.maxPositionals ?? 0)) throw new Error(`Unexpected argument "${positionals[spec.maxPositionals ?? 0]}"`);
    return new CliArguments(flags, options, settings, positionals);
  }

  flag(name: string): boolean {
    return this.flagSet.has(name);
  }

  option(name: string): string | undefined {
    return this.optionValues.get(name);
  }

  /** A `name=N` setting as a non-negative integer, or the default; throws on anything else. */
  integerSetting(name: string, defaultValue: number): number {
    const raw = this.settingValues.get(name);
    if (raw === undefined) return defaultValue;
    if (!/^\d+$/.test(raw)) throw new Error(`${name}= needs a non-negative integer, got "${raw}"`);
    return Number(raw);
  }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
