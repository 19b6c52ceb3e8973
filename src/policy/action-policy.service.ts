import { Inject, Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { Logger } from '../observability/logger';
import { ActionPolicy, EffectiveLevels, effectiveLevels, EMPTY_ACTION_POLICY, toActionPolicy } from './action-policy';
import { ActionPolicyDocument, ActionPolicyRepository } from './action-policy.repository';
import { ACTION_POLICY_REPOSITORY } from './action-policy-repository.token';

/**
 * The workspaces' action policies (GET/PUT /api/ai/policy) and the levels a run starts with. Read
 * from the store at the start of every run, never cached: a policy stored on any instance applies to
 * the next run everywhere, and never to a run in progress (RunAuthority keeps its levels).
 */
@Injectable()
export class ActionPolicyService {
  private readonly logger = new Logger('policy');

  constructor(@Inject(ACTION_POLICY_REPOSITORY) private readonly repository: ActionPolicyRepository) {}

  /** The workspace's policy; without a stored one, the empty policy (every kind validation_required). */
  async get(workspace: string): Promise<ActionPolicy> {
    return (await this.repository.get(workspace)) ?? EMPTY_ACTION_POLICY;
  }

  /** Replaces the workspace's policy (the caller is an admin: checked by the route). */
  async put(principal: Principal, policy: Partial<ActionPolicyDocument>): Promise<ActionPolicy> {
    const { default: levels, roles } = toActionPolicy(policy);
    const stored = await this.repository.put(principal.workspace, { default: levels, roles }, Date.now());
    this.logger.info('action_policy_updated', {
      workspace: principal.workspace,
      userId: principal.userId,
      policy: { default: levels, roles },
    });
    return stored;
  }

  /** Each kind's level for this principal now: what a new run decides with. */
  async levelsFor(principal: Principal): Promise<EffectiveLevels> {
    return effectiveLevels(await this.get(principal.workspace), principal.role);
  }
}
