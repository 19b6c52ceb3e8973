import type { LlmToolCall } from '../../conversation/llm-message';

/** How a round of tool calls went, for smart stopping. */
export interface RoundReport {
  /** Calls of the round that repeated an earlier call of the run (not run again). */
  repeated: number;
  /** Calls of the round run or answered otherwise (reads, refused calls). */
  fresh: number;
  /** The results the model got for the fresh calls, with the tool that produced each. */
  results: ReadonlyArray<{ toolName: string; content: string }>;
}

/**
 * Smart stopping: tells when a run's tool rounds stop bringing
 * anything new, so the loop ends it with its last call without tools instead of spending its rounds.
 *
 *  - A call is identified by its tool and its arguments (JSON with sorted keys: key order and spacing
 *    do not matter). The same call again in the same run is not run again (its result is already
 *    in the conversation) and a round made only of such calls stops the run at once.
 *  - What a round discovers: every `key` its results name (nodes, edges, node types, the graph), per
 *    tool (reading the detail of a node a search listed is a new view of it, a second search that
 *    lists the same nodes is not). A round whose results name nothing the run had not seen yet
 *    makes no progress, and so does a round whose every call was refused (an error result names no
 *    key); `limit` such rounds in a row stop the run.
 */
export class SmartStopping {
  private readonly calls = new Map<string, string>();
  private readonly discovered = new Set<string>();
  private idleRounds = 0;
  private stopped = false;

  constructor(private readonly limit: number) {}

  /** The id of the earlier call of this run that `call` repeats, or undefined (then it is remembered). */
  repeatOf(call: LlmToolCall): string | undefined {
    const signature = callSignature(call);
    const earlier = this.calls.get(signature);
    if (earlier === undefined) this.calls.set(signature, call.id);
    return earlier;
  }

  /** Counts a finished round; true when the run should stop calling tools. */
  endRound(report: RoundReport): boolean {
    if (report.fresh === 0 && report.repeated > 0) {
      this.stopped = true;
      return true;
    }
    let found = 0;
    for (const result of report.results) {
      for (const key of keysNamedIn(result.content)) {
        const item = `${result.toolName}\u0000${key}`;
        if (this.discovered.has(item)) continue;
        this.discovered.add(item);
        found += 1;
      }
    }
    this.idleRounds = found > 0 ? 0 : this.idleRounds + 1;
    if (this.idleRounds >= this.limit) this.stopped = true;
    return this.stopped;
  }

  get shouldStop(): boolean {
    return this.stopped;
  }

  /** Rounds in a row without anything new (for the log line that says why a run stopped). */
  get roundsWithoutProgress(): number {
    return this.idleRounds;
  }
}

/** The tool and its arguments, canonical: JSON with sorted keys (unparsable arguments as they are). */
export function callSignature(call: LlmToolCall): string {
  const raw = call.function.arguments ?? '';
  let args: string;
  try {
    args = canonicalJson(raw.trim() === '' ? {} : JSON.parse(raw));
  } catch {
    args = raw;
  }
  return `${call.function.name}\u0000${args}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Every string value of a `key` property anywhere in a JSON result; none for a result that is not JSON. */
function keysNamedIn(result: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    return [];
  }
  const keys: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [name, item] of Object.entries(value)) {
      if (name === 'key' && typeof item === 'string') keys.push(item);
      else visit(item);
    }
  };
  visit(parsed);
  return keys;
}
