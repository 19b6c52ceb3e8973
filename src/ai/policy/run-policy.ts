import type { Locale } from '../../config/app-config';
import type { ProposedAction } from '../../conversation/proposed-action';
import {
  ACTION_KINDS,
  ActionKind,
  EffectiveLevels,
  effectiveLevels,
  EMPTY_ACTION_POLICY,
  PolicyLevel,
  PolicySnapshot,
  strictestLevel,
} from '../../policy/action-policy';
import { toolResultTexts, ToolResultTexts } from '../tools/tool-result.texts';

/**
 * What becomes of a valid proposal (its arguments parsed): refused with a message for the model,
 * stopped for a human's approval, or applied at once.
 */
export type PolicyDecision =
  | { outcome: 'refuse'; level: 'forbidden' | 'ask_first'; message: string }
  | { outcome: 'interrupt' }
  | { outcome: 'apply' };

/**
 * The levels of a run nobody attends (an automation's) when the service does not apply actions itself
 * (HITL_APPLY=client): an autonomous action would go to a client that is not there, so it waits for a
 * human instead, who applies it on approval (docs/automations.md).
 */
export function withoutAutonomous(levels: EffectiveLevels): EffectiveLevels {
  const kept = {} as Record<ActionKind, PolicyLevel>;
  for (const kind of ACTION_KINDS) kept[kind] = levels[kind] === 'autonomous' ? 'validation_required' : levels[kind];
  return Object.freeze(kept);
}

/**
 * THE decision point of the action policy for one run (docs/protocol.md §8.1, docs/policy.md): which write
 * tools and batch parts are offered, and for each proposal whether it is refused, interrupts or is
 * applied. Built once per run from the principal's levels (or, on resume, from the state the run
 * stored with its interrupt), so a policy change never alters a run in progress. Pure.
 */
export class RunPolicy {
  private askFirstGranted: boolean;
  private readonly texts: ToolResultTexts;

  constructor(
    /** editor or admin: viewers are offered no write tool whatever the policy says. */
    readonly canPropose: boolean,
    private readonly levels: EffectiveLevels,
    askFirstGranted = false,
    /** AI_LOCALE: the language of the refusals the model is told. */
    locale: Locale = 'en',
  ) {
    this.askFirstGranted = askFirstGranted;
    this.texts = toolResultTexts(locale);
  }

  /** A workspace without a stored policy: every kind validation_required (every proposal waits for a human). */
  static withDefaultLevels(canPropose: boolean): RunPolicy {
    return new RunPolicy(canPropose, effectiveLevels(EMPTY_ACTION_POLICY, 'editor'));
  }

  /** The policy of a run that stopped on an interrupt, as it stored it. */
  static restore(canPropose: boolean, snapshot: PolicySnapshot, locale: Locale = 'en'): RunPolicy {
    return new RunPolicy(canPropose, snapshot.levels, snapshot.askFirstGranted, locale);
  }

  /** The kinds the model may propose in this run (their tools, or parts of a batch). */
  offeredKinds(): ActionKind[] {
    if (!this.canPropose) return [];
    return ACTION_KINDS.filter((kind) => this.levels[kind] !== 'forbidden');
  }

  /** The level a proposal gets now: the strictest of its kinds, ask_first counting as autonomous after a yes. */
  levelOf(action: ProposedAction): PolicyLevel {
    return strictestLevel([...kindsOf(action)].map((kind) => this.levelOfKind(kind)));
  }

  decide(action: ProposedAction): PolicyDecision {
    const level = this.canPropose ? this.levelOf(action) : 'forbidden';
    switch (level) {
      case 'forbidden':
        return { outcome: 'refuse', level, message: this.forbiddenMessage(action) };
      case 'ask_first':
        return { outcome: 'refuse', level, message: this.askFirstMessage(action) };
      case 'validation_required':
        return { outcome: 'interrupt' };
      case 'autonomous':
        return { outcome: 'apply' };
    }
  }

  /** The user answered yes to a confirm question of this run. */
  grantAskFirst(): void {
    this.askFirstGranted = true;
  }

  snapshot(): PolicySnapshot {
    return { levels: this.levels, askFirstGranted: this.askFirstGranted };
  }

  /** The level of one kind now (ask_first counting as autonomous after a yes): what its tool's description says. */
  levelOfKind(kind: ActionKind): PolicyLevel {
    const level = this.levels[kind];
    return level === 'ask_first' && this.askFirstGranted ? 'autonomous' : level;
  }

  private kindsAt(action: ProposedAction, level: PolicyLevel): ActionKind[] {
    return [...kindsOf(action)].filter((kind) => this.levelOfKind(kind) === level);
  }

  private forbiddenMessage(action: ProposedAction): string {
    if (!this.canPropose) return this.texts.policyReadOnly;
    return this.texts.policyForbids(this.kindsAt(action, 'forbidden').join(', '));
  }

  private askFirstMessage(action: ProposedAction): string {
    return this.texts.policyAsksFirst(this.kindsAt(action, 'ask_first').join(', '));
  }
}

/**
 * Every kind an action touches: its own, and for a batch `batch` plus the kinds of its parts
 * (nested batches included). A batch is as strict as the strictest of them.
 */
export function kindsOf(action: ProposedAction): Set<ActionKind> {
  const kinds = new Set<ActionKind>([action.type]);
  if (action.type === 'batch')
    for (const part of action.payload.actions) for (const kind of kindsOf(part)) kinds.add(kind);
  return kinds;
}
