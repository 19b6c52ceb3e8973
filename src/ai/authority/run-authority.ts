import type { Locale } from '../../config/app-config';
import type { ConfirmedAction } from '../../conversation/interrupt';
import type { ProposedAction } from '../../conversation/proposed-action';
import {
  ACTION_KINDS,
  ActionKind,
  AskFirstGrant,
  EffectiveLevels,
  effectiveLevels,
  EMPTY_ACTION_POLICY,
  PolicyLevel,
  PolicySnapshot,
  strictestLevel,
} from '../../policy/action-policy';
import { toolResultTexts, ToolResultTexts } from '../tools/tool-result.texts';

/**
 * What becomes of a valid proposal (its arguments parsed): refused with a message for the model, stopped for a
 * human's approval, or applied at once, `via` the policy alone (autonomous) or a yes of the user (ask_first).
 */
export type PolicyDecision =
  | { outcome: 'refuse'; level: 'forbidden' | 'ask_first'; message: string }
  | { outcome: 'interrupt' }
  | { outcome: 'apply'; via: 'autonomous' | 'ask_first' };

/**
 * The levels of a run nobody attends (an automation's) when the service does not apply actions itself
 * (HITL_APPLY=client): an autonomous action would go to a client that is not there, so it waits for a
 * human instead, who applies it on approval.
 */
export function withoutAutonomous(levels: EffectiveLevels): EffectiveLevels {
  const kept = {} as Record<ActionKind, PolicyLevel>;
  for (const kind of ACTION_KINDS) kept[kind] = levels[kind] === 'autonomous' ? 'validation_required' : levels[kind];
  return Object.freeze(kept);
}

/**
 * Who may change what in one run: which write tools and batch parts
 * are offered, and for each proposal whether it is refused, interrupts or is applied. Built once per run from the
 * acting identity's levels (or, on resume, from the state the run stored with its interrupt), so a policy change
 * never alters a run in progress. A change is judged at the strictest kind it amounts to (an update that sets posX /
 * posY is a move too). An `ask_first` kind is allowed only by a yes to a confirm question asked for that kind and
 * target, and only from the model's next reply on (a proposal made in the same reply as the question is checked
 * without it: beginReply). Pure.
 */
export class RunAuthority {
  private readonly texts: ToolResultTexts;
  /** Yeses in effect (from an earlier reply). */
  private readonly grants: AskFirstGrant[];
  /** Yeses given during the current reply: in effect from the next one. */
  private readonly waiting: AskFirstGrant[] = [];

  constructor(
    /** editor or admin: viewers are offered no write tool whatever the policy says. */
    readonly canPropose: boolean,
    private readonly levels: EffectiveLevels,
    grants: readonly AskFirstGrant[] = [],
    /** AI_LOCALE: the language of the refusals the model is told. */
    locale: Locale = 'en',
    waiting: readonly AskFirstGrant[] = [],
  ) {
    this.grants = [...grants];
    this.waiting.push(...waiting);
    this.texts = toolResultTexts(locale);
  }

  /** A workspace without a stored policy: every kind validation_required (every proposal waits for a human). */
  static withDefaultLevels(canPropose: boolean): RunAuthority {
    return new RunAuthority(canPropose, effectiveLevels(EMPTY_ACTION_POLICY, 'editor'));
  }

  /** The authority of a run that stopped on an interrupt, as it stored it (a snapshot from before grants existed has none). */
  static restore(canPropose: boolean, snapshot: PolicySnapshot, locale: Locale = 'en'): RunAuthority {
    return new RunAuthority(canPropose, snapshot.levels, snapshot.grants ?? [], locale, snapshot.waitingGrants ?? []);
  }

  /** The kinds the model may propose in this run (their tools, or parts of a batch). */
  offeredKinds(): ActionKind[] {
    if (!this.canPropose) return [];
    return ACTION_KINDS.filter((kind) => this.levels[kind] !== 'forbidden');
  }

  /** The level of one kind now (ask_first counting as autonomous after a yes for any target): what its tool's description says. */
  levelOfKind(kind: ActionKind): PolicyLevel {
    const level = this.levels[kind];
    return level === 'ask_first' && this.grants.some((grant) => grant.kind === kind && grant.target === undefined)
      ? 'autonomous'
      : level;
  }

  decide(action: ProposedAction): PolicyDecision {
    if (!this.canPropose) return { outcome: 'refuse', level: 'forbidden', message: this.texts.policyReadOnly };
    const parts = partsOf(action);
    const kinds = [...new Set(parts.map((part) => part.kind))];
    const forbidden = kinds.filter((kind) => this.levels[kind] === 'forbidden');
    if (forbidden.length > 0)
      return { outcome: 'refuse', level: 'forbidden', message: this.texts.policyForbids(forbidden.join(', ')) };
    const unconfirmed = parts.filter((part) => this.levels[part.kind] === 'ask_first' && !this.allows(part));
    if (unconfirmed.length > 0) {
      const kindsToAsk = [...new Set(unconfirmed.map((part) => part.kind))].join(', ');
      return { outcome: 'refuse', level: 'ask_first', message: this.texts.policyAsksFirst(kindsToAsk) };
    }
    const level = strictestLevel(
      kinds.map((kind) => (this.levels[kind] === 'ask_first' ? 'autonomous' : this.levels[kind])),
    );
    if (level === 'validation_required') return { outcome: 'interrupt' };
    return {
      outcome: 'apply',
      via: kinds.some((kind) => this.levels[kind] === 'ask_first') ? 'ask_first' : 'autonomous',
    };
  }

  /** The user answered yes to a confirm question asked for `action` (call `grantedBy`): allowed from the next reply. */
  grant(action: ConfirmedAction, grantedBy: string): void {
    this.waiting.push({
      kind: action.kind,
      ...(action.target !== undefined ? { target: action.target } : {}),
      grantedBy,
    });
  }

  /** The model's next reply begins: the yeses given since the last one take effect. */
  beginReply(): void {
    this.grants.push(...this.waiting.splice(0));
  }

  /** What a pending interrupt stores: its resume goes on with the same levels and yeses. */
  snapshot(): PolicySnapshot {
    return {
      levels: this.levels,
      grants: [...this.grants],
      ...(this.waiting.length > 0 ? { waitingGrants: [...this.waiting] } : {}),
    };
  }

  /** A yes in effect covers this part: its kind, and its target or any. */
  private allows(part: ActionPart): boolean {
    return this.grants.some(
      (grant) => grant.kind === part.kind && (grant.target === undefined || part.targets.includes(grant.target)),
    );
  }
}

/** One kind an action amounts to, with the node and edge keys it concerns (what a yes's `target` names). */
interface ActionPart {
  kind: ActionKind;
  targets: string[];
}

/**
 * Every kind an action amounts to: its own; `move_node` too for an update that sets posX or posY;
 * for a batch `batch` plus the kinds of its parts (nested batches included). A change is as strict as the strictest
 * of them.
 */
export function kindsOf(action: ProposedAction): Set<ActionKind> {
  return new Set(partsOf(action).map((part) => part.kind));
}

function partsOf(action: ProposedAction): ActionPart[] {
  switch (action.type) {
    case 'batch':
      return [{ kind: 'batch', targets: [] }, ...action.payload.actions.flatMap((part) => partsOf(part))];
    case 'update_node': {
      const targets = [action.payload.nodeKey];
      const moves = Object.keys(action.payload.changes).some((path) => path === 'posX' || path === 'posY');
      return moves
        ? [
            { kind: 'update_node', targets },
            { kind: 'move_node', targets },
          ]
        : [{ kind: 'update_node', targets }];
    }
    case 'create_node':
      return [{ kind: 'create_node', targets: action.payload.nodeKey !== undefined ? [action.payload.nodeKey] : [] }];
    case 'create_edge': {
      const { edgeKey, sourceKey, targetKey } = action.payload;
      return [{ kind: 'create_edge', targets: [...(edgeKey !== undefined ? [edgeKey] : []), sourceKey, targetKey] }];
    }
    case 'move_node':
    case 'delete_node':
      return [{ kind: action.type, targets: [action.payload.nodeKey] }];
    case 'delete_edge':
      return [{ kind: 'delete_edge', targets: [action.payload.edgeKey] }];
  }
}
