import { parseArgs } from 'node:util';

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
 * and positional words (after `--`, every word is one). node:util's parseArgs splits the line;
 * anything the spec does not name is an error here (a typo must not be ignored), worded for the
 * person who typed it.
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
    const args = [...argv];
    const { tokens } = parseArgs({
      args,
      options: Object.fromEntries((spec.options ?? []).map((name) => [name, { type: 'string' as const }])),
      // Checked below, so that the messages name the argument as typed.
      strict: false,
      allowPositionals: true,
      tokens: true,
    });
    const flags = new Set<string>();
    const options = new Map<string, string>();
    const settings = new Map<string, string>();
    const positionals: string[] = [];
    let afterTerminator = false;
    for (const token of tokens) {
      if (token.kind === 'option-terminator') {
        afterTerminator = true;
      } else if (token.kind === 'option') {
        if (token.rawName.startsWith('--') && spec.options?.includes(token.name)) {
          if (!token.value) throw new Error(`--${token.name} needs a value`);
          options.set(token.name, token.value);
        } else if (token.rawName.startsWith('--') && spec.flags?.includes(token.name) && !token.inlineValue) {
          flags.add(token.name);
        } else {
          throw new Error(`Unknown option ${args[token.index]}`);
        }
      } else if (!afterTerminator && /^[a-z][a-z0-9_-]*=/i.test(token.value)) {
        const name = token.value.slice(0, token.value.indexOf('='));
        if (!spec.settings?.includes(name)) throw new Error(`Unknown setting ${name}=`);
        settings.set(name, token.value.slice(name.length + 1));
      } else {
        positionals.push(token.value);
      }
    }
    if (positionals.length > (spec.maxPositionals ?? 0))
      throw new Error(`Unexpected argument "${positionals[spec.maxPositionals ?? 0]}"`);
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
