import { Body, Controller, Get, HttpCode, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Principal } from '../auth/principal';
import { RequireRole } from '../auth/require-role.decorator';
import { ActionPolicy } from './action-policy';
import { ActionPolicyService } from './action-policy.service';
import { ActionPolicyDto } from './dto/action-policy.dto';

const POLICY_EXAMPLE: ActionPolicy = {
  default: {
    create_node: 'autonomous',
    create_edge: 'autonomous',
    move_node: 'autonomous',
    delete_node: 'ask_first',
    delete_edge: 'forbidden',
  },
  roles: { admin: { delete_edge: 'validation_required' } },
  updatedTime: 1764086400000,
};

const LEVELS_DESCRIPTION =
  'Levels: `autonomous` (checked, then applied without a human; the client sees the tool result `applied` and an ' +
  "ACTIONS_EXECUTED event), `validation_required` (the approval interrupt: today's behaviour, and the level of any kind " +
  'not listed), `ask_first` (refused until the user answered yes to a confirm question of the same run, then applied as ' +
  'autonomous), `forbidden` (not offered to the model; a call anyway is refused and nothing is applied). A batch takes ' +
  'the strictest level of `batch` and of its parts. `roles.editor` / `roles.admin` replace the default for that role, kind ' +
  'by kind. A change applies to the next run; a run in progress, and an interrupt waiting for an answer, keep the policy ' +
  'they started with.';

@ApiTags('ai')
@ApiBearerAuth()
@Controller('ai')
export class ActionPolicyController {
  constructor(private readonly policies: ActionPolicyService) {}

  @Get('policy')
  @ApiOperation({
    summary: "Your workspace's action policy",
    description: `What the assistant may do with each kind of change. ${LEVELS_DESCRIPTION}`,
  })
  @ApiResponse({
    status: 200,
    description: 'The stored policy; `{ "default": {}, "roles": {} }` (no `updatedTime`) when none was ever stored.',
    type: ActionPolicyDto,
    schema: { example: POLICY_EXAMPLE },
  })
  @ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' })
  get(@CurrentPrincipal() principal: Principal): Promise<ActionPolicy> {
    return this.policies.get(principal.workspace);
  }

  @Put('policy')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({
    summary: "Replace your workspace's action policy (admin)",
    description: `Replaces the whole policy: kinds and roles left out are validation_required again. \`{}\` restores the default. ${LEVELS_DESCRIPTION}`,
  })
  @ApiBody({
    type: ActionPolicyDto,
    examples: { policy: { value: { default: POLICY_EXAMPLE.default, roles: POLICY_EXAMPLE.roles } } },
  })
  @ApiResponse({
    status: 200,
    description: 'The policy as stored, with its `updatedTime`.',
    schema: { example: POLICY_EXAMPLE },
  })
  @ApiResponse({
    status: 400,
    description: 'An unknown kind, role, level or field.',
    schema: {
      example: {
        statusCode: 400,
        code: 'bad_request',
        message: 'Invalid request: default.teleport_node: property teleport_node should not exist',
        details: [{ field: 'default.teleport_node', problems: ['property teleport_node should not exist'] }],
      },
    },
  })
  @ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' })
  @ApiResponse({
    status: 403,
    description: 'Not an admin.',
    schema: { example: { statusCode: 403, code: 'forbidden', message: 'This action requires the role admin' } },
  })
  put(@CurrentPrincipal() principal: Principal, @Body() body: ActionPolicyDto): Promise<ActionPolicy> {
    return this.policies.put(principal, body as Partial<ActionPolicy>);
  }
}
