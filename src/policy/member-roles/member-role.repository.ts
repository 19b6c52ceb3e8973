import type { Role } from '../../auth/principal';

/** The role a person last had, as the service saw it in their token, and when. */
export interface SeenRole {
  role: Role;
  seenTime: number;
}

/**
 * The latest role each person of a workspace presented (port; adapters: SQLite, ArangoDB; one contract suite). The
 * service has no user directory: a role is known from the tokens people send, so this is what "their current role"
 * means. Every query names the workspace.
 */
export interface MemberRoleRepository {
  /** Stores the role seen at `seenTime`, unless a later sighting is stored already. */
  record(workspace: string, userId: string, role: Role, seenTime: number): Promise<void>;
  get(workspace: string, userId: string): Promise<SeenRole | null>;
}
