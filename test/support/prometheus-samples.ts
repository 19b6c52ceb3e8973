/** One sample line of the Prometheus text format: `name{label="value",...} value`. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The samples of a scrape (`GET /metrics`, or a registry's text), parsed strictly enough for tests:
 * comments skipped, label values unescaped, every other line must be a sample.
 */
export class PrometheusSamples {
  readonly samples: PrometheusSample[];

  constructor(readonly text: string) {
    this.samples = text
      .split('\n')
      .filter((line) => line.length > 0 && !line.startsWith('#'))
      .map((line) => {
        const match = SAMPLE_LINE.exec(line);
        if (!match) throw new Error(`Not a Prometheus sample line: ${line}`);
        const labels: Record<string, string> = {};
        for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL_PAIR))
          labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
        return { name: match[1], labels, value: Number(match[3]) };
      });
  }

  /** Samples of `name` whose labels include `labels`. */
  find(name: string, labels: Record<string, string> = {}): PrometheusSample[] {
    return this.samples.filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  }

  /** Sum of the matching samples' values (0 when none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels).reduce((total, sample) => total + sample.value, 0);
  }

  /** The `# TYPE` of a metric family, or undefined when it is not exposed. */
  typeOf(name: string): string | undefined {
    return new RegExp(`^# TYPE ${name} (\\w+)$`, 'm').exec(this.text)?.[1];
  }

  /** Every value one label takes across the samples of `name`. */
  labelValues(name: string, label: string): string[] {
    return [
      ...new Set(
        this.find(name)
          .map((sample) => sample.labels[label])
          .filter((value) => value !== undefined),
      ),
    ].sort();
  }
}
