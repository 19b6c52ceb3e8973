import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ActionPolicyController } from './action-policy.controller';
import { ActionPolicyService } from './action-policy.service';
import { MemberRoleInterceptor } from './member-roles/member-role.interceptor';
import { MemberRoles } from './member-roles/member-roles';

/**
 * Who may change what: each workspace's action policy (GET/PUT /api/ai/policy and
 * ActionPolicyService, on the ACTION_POLICY_REPOSITORY adapter the global PersistenceModule chose from STORE), and each
 * person's current role as their tokens show it (MemberRoles, recorded by a global interceptor and by the socket
 * gateway), which the automations' runs are checked against. The agent imports it for the levels a run starts with;
 * what a level does to a proposal is decided in the agent (src/ai/authority/run-authority.ts).
 */
@Module({
  controllers: [ActionPolicyController],
  providers: [ActionPolicyService, MemberRoles, { provide: APP_INTERCEPTOR, useClass: MemberRoleInterceptor }],
  exports: [ActionPolicyService, MemberRoles],
})
export class PolicyModule {}
