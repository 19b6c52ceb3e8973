import { Module } from '@nestjs/common';
import { ActionPolicyController } from './action-policy.controller';
import { ActionPolicyService } from './action-policy.service';

/**
 * Each workspace's action policy: GET/PUT /api/ai/policy and ActionPolicyService, on
 * the ActionPolicyRepository adapter (ACTION_POLICY_REPOSITORY) the global PersistenceModule chose
 * from STORE. The agent imports it for the levels a run starts with; what a level does to a proposal
 * is decided in the agent (src/ai/policy/run-policy.ts).
 */
@Module({
  controllers: [ActionPolicyController],
  providers: [ActionPolicyService],
  exports: [ActionPolicyService],
})
export class PolicyModule {}
