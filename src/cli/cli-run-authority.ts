import { INestApplicationContext } from '@nestjs/common';
import { RunAuthority } from '../ai/authority/run-authority';
import { canEdit, Role } from '../auth/principal';
import { effectiveLevels, EMPTY_ACTION_POLICY } from '../policy/action-policy';
import { ActionPolicyRepository } from '../policy/action-policy.repository';
import { ACTION_POLICY_REPOSITORY } from '../policy/action-policy-repository.token';

/** What a run of `role` in `workspace` may change: the workspace's stored policy, as the service reads it. */
export async function runAuthorityFor(
  app: INestApplicationContext,
  workspace: string,
  role: Role,
): Promise<RunAuthority> {
  const stored = await app.get<ActionPolicyRepository>(ACTION_POLICY_REPOSITORY, { strict: false }).get(workspace);
  return new RunAuthority(
    canEdit({ userId: 'cli', workspace, role }),
    effectiveLevels(stored ?? EMPTY_ACTION_POLICY, role),
  );
}
