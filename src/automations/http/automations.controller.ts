import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import { RequireRole } from '../../auth/require-role.decorator';
import { AutomationRunView, AutomationView } from '../automation';
import { AutomationService } from '../automation.service';
import { CreateAutomationDto } from '../dto/create-automation.dto';
import { RunsQueryDto } from '../dto/runs-query.dto';
import { UpdateAutomationDto } from '../dto/update-automation.dto';
import { AUTOMATION_ERRORS, AUTOMATION_EXAMPLE, RUN_EXAMPLE, RUNS_EXAMPLE } from './automation-api.examples';

const ID_PARAM = { name: 'automationId', example: AUTOMATION_EXAMPLE.automationId };
const DEFAULT_RUNS_LISTED = 50;
const errorResponse = (status: number, description: string, example: object) =>
  ApiResponse({ status, description, schema: { example } });
const unauthorized = () => ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' });
const forbidden = () => errorResponse(403, 'Viewers have no automations.', AUTOMATION_ERRORS.forbidden);

/**
 * Automations (docs/protocol.md §8.4): stored prompts that run on a schedule through
 * the same agent as chat, each run a thread of type `automation`. Editors and admins only; every
 * automation of the workspace is theirs to read, change and run.
 */
@ApiTags('automations')
@ApiBearerAuth()
@RequireRole('editor', 'admin')
@Controller('ai/automations')
export class AutomationsController {
  constructor(private readonly automations: AutomationService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create an automation',
    description:
      'Its runs start at each slot of the schedule (at most one run a minute), as you (the creator: you own their threads, your role ' +
      "decides the policy), on the workspace's active provider configuration unless `providerConfigId` names one. Slots missed while no " +
      'instance was up give one run; one run at a time.',
  })
  @ApiBody({
    type: CreateAutomationDto,
    examples: {
      weekly: {
        summary: 'Every Monday at 09:00 in Paris',
        value: {
          name: AUTOMATION_EXAMPLE.name,
          graphKey: 'nba-workflow',
          prompt: AUTOMATION_EXAMPLE.prompt,
          schedule: AUTOMATION_EXAMPLE.schedule,
          maxCostUsdPerMonth: 20,
        },
      },
      daily: {
        summary: 'Every day at 07:30 UTC, disabled for now',
        value: {
          name: 'Daily digest',
          graphKey: 'nba-workflow',
          prompt: 'What changed since {{lastRunTime}}?',
          schedule: { cron: '30 7 * * *', timezone: 'UTC' },
          enabled: false,
        },
      },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'The automation, with its next run time.',
    schema: { example: { ...AUTOMATION_EXAMPLE, lastRun: undefined } },
  })
  @ApiResponse({
    status: 400,
    description: 'Invalid body, cron expression, time zone or placeholder.',
    content: {
      'application/json': {
        examples: {
          cron: { value: AUTOMATION_ERRORS.badCron },
          zone: { value: AUTOMATION_ERRORS.badZone },
          placeholder: { value: AUTOMATION_ERRORS.badPlaceholder },
        },
      },
    },
  })
  @unauthorized()
  @forbidden()
  @errorResponse(404, 'No such graph (or provider configuration) in your workspace.', AUTOMATION_ERRORS.graphNotFound)
  @errorResponse(413, 'Prompt longer than MESSAGE_MAX_CHARS.', AUTOMATION_ERRORS.tooLong)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAutomationDto): Promise<AutomationView> {
    return this.automations.create(principal, {
      name: body.name,
      graphKey: body.graphKey,
      prompt: body.prompt,
      schedule: { cron: body.schedule.cron, timezone: body.schedule.timezone },
      enabled: body.enabled,
      maxCostUsdPerRun: body.maxCostUsdPerRun,
      maxCostUsdPerMonth: body.maxCostUsdPerMonth,
      providerConfigId: body.providerConfigId,
    });
  }

  @Get()
  @ApiOperation({
    summary: "The workspace's automations",
    description: 'Oldest first, each with its next run time and its latest run.',
  })
  @ApiResponse({ status: 200, description: 'The automations.', schema: { example: [AUTOMATION_EXAMPLE] } })
  @unauthorized()
  @forbidden()
  list(@CurrentPrincipal() principal: Principal): Promise<AutomationView[]> {
    return this.automations.list(principal);
  }

  @Get(':automationId')
  @ApiOperation({ summary: 'One automation' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, description: 'The automation.', schema: { example: AUTOMATION_EXAMPLE } })
  @unauthorized()
  @forbidden()
  @errorResponse(404, 'No such automation in your workspace.', AUTOMATION_ERRORS.notFound)
  get(@CurrentPrincipal() principal: Principal, @Param('automationId') automationId: string): Promise<AutomationView> {
    return this.automations.get(principal, automationId);
  }

  @Patch(':automationId')
  @ApiOperation({
    summary: 'Change an automation',
    description:
      'Any subset of the POST fields; null removes a budget or the provider configuration. A new schedule, or enabling it again, counts from now.',
  })
  @ApiParam(ID_PARAM)
  @ApiBody({
    type: UpdateAutomationDto,
    examples: {
      pause: { summary: 'Pause it', value: { enabled: false } },
      schedule: { summary: 'Fridays at 17:00', value: { schedule: { cron: '0 17 * * 5', timezone: 'Europe/Paris' } } },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'The changed automation.',
    schema: { example: { ...AUTOMATION_EXAMPLE, enabled: false, nextRunTime: null } },
  })
  @errorResponse(400, 'Invalid body, cron expression, time zone or placeholder.', AUTOMATION_ERRORS.badCron)
  @unauthorized()
  @forbidden()
  @errorResponse(
    404,
    'No such automation (or graph, or provider configuration) in your workspace.',
    AUTOMATION_ERRORS.notFound,
  )
  @errorResponse(413, 'Prompt longer than MESSAGE_MAX_CHARS.', AUTOMATION_ERRORS.tooLong)
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('automationId') automationId: string,
    @Body() body: UpdateAutomationDto,
  ): Promise<AutomationView> {
    return this.automations.update(principal, automationId, {
      name: body.name,
      graphKey: body.graphKey,
      prompt: body.prompt,
      schedule: body.schedule ? { cron: body.schedule.cron, timezone: body.schedule.timezone } : undefined,
      enabled: body.enabled,
      maxCostUsdPerRun: body.maxCostUsdPerRun,
      maxCostUsdPerMonth: body.maxCostUsdPerMonth,
      providerConfigId: body.providerConfigId,
    });
  }

  @Delete(':automationId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an automation',
    description:
      "Its run history goes with it; the threads of its runs stay (their creator's). A run in progress is stopped.",
  })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 204, description: 'Deleted.' })
  @unauthorized()
  @forbidden()
  @errorResponse(404, 'No such automation in your workspace.', AUTOMATION_ERRORS.notFound)
  async delete(@CurrentPrincipal() principal: Principal, @Param('automationId') automationId: string): Promise<void> {
    await this.automations.delete(principal, automationId);
  }

  @Post(':automationId/run')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run it now',
    description:
      'Starts a run whatever the schedule (also when disabled) and answers as soon as its thread exists; the run goes on in the background ' +
      '(follow it with GET …/runs or GET /api/ai/thread/:threadId). `threadId` is null when the run was skipped for its budget.',
  })
  @ApiParam(ID_PARAM)
  @ApiResponse({
    status: 200,
    description: 'The run and its thread.',
    schema: { example: { runId: RUN_EXAMPLE.runId, threadId: RUN_EXAMPLE.threadId } },
  })
  @unauthorized()
  @forbidden()
  @errorResponse(404, 'No such automation in your workspace.', AUTOMATION_ERRORS.notFound)
  @errorResponse(409, 'A run of it is in progress (on any instance).', AUTOMATION_ERRORS.running)
  @errorResponse(
    429,
    'As many automation runs are in progress as the limits allow (AUTOMATION_MAX_RUNS, AUTOMATION_MAX_RUNS_PER_WORKSPACE).',
    AUTOMATION_ERRORS.limited,
  )
  runNow(
    @CurrentPrincipal() principal: Principal,
    @Param('automationId') automationId: string,
  ): Promise<{ runId: string; threadId: string | null }> {
    return this.automations.runNow(principal, automationId);
  }

  @Get(':automationId/runs')
  @ApiOperation({
    summary: 'Its runs, newest first',
    description:
      'Each with start, end, outcome (running, completed, interrupted — waiting in GET /api/ai/approvals —, failed, skipped_budget, skipped_too_large), usage and cost ' +
      '(its resumes included), and the error of a failed or skipped run.',
  })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, description: 'The runs.', schema: { example: RUNS_EXAMPLE } })
  @errorResponse(400, 'Invalid limit.', {
    statusCode: 400,
    code: 'bad_request',
    message: 'Invalid request: limit: limit must not be greater than 200',
  })
  @unauthorized()
  @forbidden()
  @errorResponse(404, 'No such automation in your workspace.', AUTOMATION_ERRORS.notFound)
  runs(
    @CurrentPrincipal() principal: Principal,
    @Param('automationId') automationId: string,
    @Query() query: RunsQueryDto,
  ): Promise<AutomationRunView[]> {
    return this.automations.runs(principal, automationId, query.limit ?? DEFAULT_RUNS_LISTED);
  }
}
