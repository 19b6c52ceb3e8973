import type { ActionPolicy } from './action-policy';

/** The levels and role overrides of a policy, as written (the store adds updatedTime). */
export type ActionPolicyDocument = Pick<ActionPolicy, 'default' | 'roles'>;

/**
 * Where each workspace's action policy is kept (port; adapters: SQLite, ArangoDB). One document per
 * workspace; every call names its workspace and reads or writes only that one.
 */
export interface ActionPolicyRepository {
  /** The workspace's policy, or null when it never stored one. */
  get(workspace: string): Promise<ActionPolicy | null>;
  /** Replaces the workspace's policy; returns it as stored, with `updatedTime: now`. */
  put(workspace: string, policy: ActionPolicyDocument, now: number): Promise<ActionPolicy>;
}
