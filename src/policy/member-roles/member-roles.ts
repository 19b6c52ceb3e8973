import { Inject, Injectable } from '@nestjs/common';
import type { Principal, Role } from '../../auth/principal';
import { Logger } from '../../observability/logger';
import type { MemberRoleRepository } from './member-role.repository';
import { MEMBER_ROLE_REPOSITORY } from './member-role-repository.token';

/** Roles from the least to the most allowed. */
const ROLE_ORDER: readonly Role[] = ['viewer', 'editor', 'admin'];
/** People whose last recorded role this process remembers (least recently seen forgotten first). */
const REMEMBERED = 10_000;

const logger = new Logger('policy');

/** The lowest of some roles (viewer < editor < admin). */
export function lowestRole(...roles: Role[]): Role {
  return roles.reduce((lowest, role) => (ROLE_ORDER.indexOf(role) < ROLE_ORDER.indexOf(lowest) ? role : lowest));
}

/**
 * Each person's current role as the service knows it: the role of the last token they
 * presented, recorded when it differs from what this process last recorded for them (one write per change, not per
 * request), so a demotion applies to the automations they created from their next request on.
 */
@Injectable()
export class MemberRoles {
  private readonly recorded = new Map<string, Role>();

  constructor(@Inject(MEMBER_ROLE_REPOSITORY) private readonly repository: MemberRoleRepository) {}

  /** A request of `principal` was authenticated. Never throws: a failure is logged, the request goes on. */
  async seen(principal: Principal): Promise<void> {
    const key = `${principal.workspace}\u0000${principal.userId}`;
    if (this.recorded.get(key) === principal.role) return;
    try {
      await this.repository.record(principal.workspace, principal.userId, principal.role, Date.now());
      this.recorded.delete(key);
      this.recorded.set(key, principal.role);
      if (this.recorded.size > REMEMBERED) this.recorded.delete(this.recorded.keys().next().value as string);
    } catch (error) {
      logger.warn('member_role_record_failed', {
        workspace: principal.workspace,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** The person's current role, or `fallback` when they were never seen. */
  async currentRole(workspace: string, userId: string, fallback: Role): Promise<Role> {
    return (await this.repository.get(workspace, userId))?.role ?? fallback;
  }
}
