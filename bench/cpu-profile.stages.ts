import { readFileSync } from 'node:fs';

/** The parts of a V8 `.cpuprofile` (Node's --cpu-prof) this file reads. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string };
    children?: number[];
  }>;
  /** µs, on the same clock as monotonicMs() × 1,000 (CLOCK_MONOTONIC on Linux). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stage of a conversation and the frames that mark it. */
export interface StageRule {
  stage: string;
  /** Matched against a frame's script URL (file:///…/dist/src/ai/… or node_modules paths). */
  url: RegExp;
  /** When set, the frame's function name must match too. */
  functionName?: RegExp;
  /**
   * A shared layer (the thread store, the graph store, the embeddings): its stage is the caller's, the next matching
   * frame up the stack, and its own only when no frame above it matches.
   */
  shared?: boolean;
}

export interface StageSamples {
  stage: string;
  samples: number;
  /** The stage's samples by the leaf frame's script (see scriptOf). */
  leafScripts: Map<string, number>;
}

/** V8's marker for a sample taken while the event loop waited: not work. */
const IDLE = '(idle)';
/** V8's markers for garbage collection and for native work outside any JavaScript function: stages of their own. */
const GC = '(garbage collector)';
const PROGRAM = '(program)';

/**
 * Samples of a CPU profile inside time windows, each given the stage of its stack: the DEEPEST frame that matches
 * `ownRules` (the service's own files: the innermost step of ours that the sample is working for), else the
 * deepest frame that matches `libraryRules` (a library working on its own, e.g. the SDK reading the stream after
 * an await, whose stack holds none of our frames), else `unattributed`. A shared layer's rule (StageRule.shared) gives way to the frames that call it. `overrideRules` win over both wherever they
 * match in the stack (logging: a log line written inside a commit is logging's cost). Idle samples are left out;
 * garbage collection and native work outside JavaScript (V8's `(program)`) are stages of their own.
 */
export function stageSamples(
  profile: CpuProfile,
  windowsMs: ReadonlyArray<readonly [number, number]>,
  rules: { overrideRules: StageRule[]; ownRules: StageRule[]; libraryRules: StageRule[] },
): StageSamples[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOfNode = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const frames: Array<{ functionName: string; url: string }> = [];
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (frame) frames.push(frame);
    }
    const leaf = frames[0]?.functionName ?? '';
    let stage: string | null;
    if (leaf === IDLE) stage = null;
    else if (leaf === GC) stage = 'garbage collection';
    else if (leaf === PROGRAM) stage = 'native, outside JavaScript';
    else
      stage =
        deepest(frames, rules.overrideRules) ??
        deepest(frames, rules.ownRules) ??
        deepest(frames, rules.libraryRules) ??
        'unattributed';
    stageOfNode.set(id, stage);
    return stage;
  };
  const windows = windowsMs.map(([start, end]) => [start * 1000, end * 1000] as const);
  const counts = new Map<string, StageSamples>();
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (!windows.some(([start, end]) => time >= start && time <= end)) return;
    const stage = classify(id);
    if (stage === null) return;
    const entry = counts.get(stage) ?? { stage, samples: 0, leafScripts: new Map<string, number>() };
    entry.samples += 1;
    const script = scriptOf(byId.get(id)?.callFrame);
    entry.leafScripts.set(script, (entry.leafScripts.get(script) ?? 0) + 1);
    counts.set(stage, entry);
  });
  return [...counts.values()];
}

/** A frame's script, shortened to node_modules/… or dist/…, or its function for natives and V8's markers. */
function scriptOf(frame: { functionName: string; url: string } | undefined): string {
  return frame?.url ? frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/') : `(${frame?.functionName})`;
}

/** The stage of the innermost frame (frames run leaf first) that a rule matches, shared layers giving way to callers. */
function deepest(frames: ReadonlyArray<{ functionName: string; url: string }>, rules: StageRule[]): string | undefined {
  let shared: string | undefined;
  for (const frame of frames) {
    const rule = rules.find(
      (candidate) =>
        candidate.url.test(frame.url) && (!candidate.functionName || candidate.functionName.test(frame.functionName)),
    );
    if (!rule) continue;
    if (!rule.shared) return rule.stage;
    shared ??= rule.stage;
  }
  return shared;
}

export function readCpuProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}
