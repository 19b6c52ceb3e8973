/** The kinds of change a policy rules on: one per propose_* tool. */
export const ACTION_KINDS = [
  'create_node',
  'update_node',
  'move_node',
  'delete_node',
  'create_edge',
  'delete_edge',
  'batch',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/**
 * What happens to a proposal of a kind, from the least to the
 * most strict for a batch: applied without a human, approved by a human first, allowed once the user
 * said yes to a question, never offered.
 */
export const POLICY_LEVELS = ['autonomous', 'validation_required', 'ask_first', 'forbidden'] as const;
export type PolicyLevel = (typeof POLICY_LEVELS)[number];

/** The level of a kind no policy names: today's behaviour, every proposal waits for approval. */
export const DEFAULT_POLICY_LEVEL: PolicyLevel = 'validation_required';

/** Roles whose levels may override the workspace's default ones (viewers never propose anything). */
export const POLICY_ROLES = ['editor', 'admin'] as const;
export type PolicyRole = (typeof POLICY_ROLES)[number];

export type PolicyLevels = Partial<Record<ActionKind, PolicyLevel>>;

/** A workspace's policy as GET/PUT /api/ai/policy carry it; kinds not listed are validation_required. */
export interface ActionPolicy {
  default: PolicyLevels;
  roles: Partial<Record<PolicyRole, PolicyLevels>>;
  /** When it was last stored; absent for a workspace that never stored one. */
  updatedTime?: number;
}

/** The policy of a workspace that never stored one. */
export const EMPTY_ACTION_POLICY: ActionPolicy = Object.freeze({
  default: Object.freeze({}),
  roles: Object.freeze({}),
});

/** The level of every kind for one principal: what a run decides with. */
export type EffectiveLevels = Readonly<Record<ActionKind, PolicyLevel>>;

/**
 * A yes to a confirm question asked for an action (`forAction`): from the model's next reply
 * on, proposals of that kind on that target (any target when absent) are handled as autonomous, for the rest of the
 * run.
 */
export interface AskFirstGrant {
  kind: ActionKind;
  target?: string;
  /** The tool call of the question answered yes. */
  grantedBy: string;
}

/**
 * What a run remembers of its policy across interrupts (stored with a pending interrupt, read back on
 * resume): the levels it started with, since a policy stored later applies to the next run only, and
 * the ask_first actions the user allowed in the run.
 */
export interface PolicySnapshot {
  levels: EffectiveLevels;
  grants: AskFirstGrant[];
  /** Yeses given during the model reply the run stopped in: in effect from its next reply. */
  waitingGrants?: AskFirstGrant[];
}

/** The strictest level of several (forbidden > ask_first > validation_required > autonomous). */
export function strictestLevel(levels: Iterable<PolicyLevel>): PolicyLevel {
  let strictest: PolicyLevel = 'autonomous';
  for (const level of levels) if (POLICY_LEVELS.indexOf(level) > POLICY_LEVELS.indexOf(strictest)) strictest = level;
  return strictest;
}

/** Each kind's level for a role: the role's override, else the workspace default, else validation_required. */
export function effectiveLevels(policy: ActionPolicy, role: string): EffectiveLevels {
  const override = (POLICY_ROLES as readonly string[]).includes(role) ? policy.roles[role as PolicyRole] : undefined;
  const levels = {} as Record<ActionKind, PolicyLevel>;
  for (const kind of ACTION_KINDS) levels[kind] = override?.[kind] ?? policy.default[kind] ?? DEFAULT_POLICY_LEVEL;
  return Object.freeze(levels);
}

/**
 * A stored policy as this service reads it back: kinds, roles and levels it knows kept, anything else
 * dropped (a document edited by hand in the store never breaks a run; an unknown level is as if unset).
 */
export function toActionPolicy(stored: { default?: unknown; roles?: unknown; updatedTime?: unknown }): ActionPolicy {
  const roles: ActionPolicy['roles'] = {};
  const storedRoles = isRecord(stored.roles) ? stored.roles : {};
  for (const role of POLICY_ROLES) if (isRecord(storedRoles[role])) roles[role] = toLevels(storedRoles[role]);
  return {
    default: toLevels(stored.default),
    roles,
    ...(typeof stored.updatedTime === 'number' ? { updatedTime: stored.updatedTime } : {}),
  };
}

function toLevels(value: unknown): PolicyLevels {
  const levels: PolicyLevels = {};
  if (!isRecord(value)) return levels;
  for (const kind of ACTION_KINDS) {
    const level = value[kind];
    if ((POLICY_LEVELS as readonly unknown[]).includes(level)) levels[kind] = level as PolicyLevel;
  }
  return levels;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
