import { INestApplicationContext } from '@nestjs/common';
import { RunPolicy } from '../ai/policy/run-policy';
import { canEdit, Role } from '../auth/principal';
import { effectiveLevels, EMPTY_ACTION_POLICY } from '../policy/action-policy';
import { ActionPolicyRepository } from '../policy/action-policy.repository';
import { ACTION_POLICY_REPOSITORY } from '../policy/action-policy-repository.token';

/** The action policy a run of `role` in `workspace` starts with: the workspace's stored one, as the service reads it. */
export async function runPolicyFor(app: INestApplicationContext, workspace: string, role: Role): Promise<RunPolicy> {
  const stored = await app.get<ActionPolicyRepository>(ACTION_POLICY_REPOSITORY, { strict: false }).get(workspace);
  return new RunPolicy(
    canEdit({ userId: 'cli', workspace, role }),
    effectiveLevels(stored ?? EMPTY_ACTION_POLICY, role),
  );
}
