import { Inject, Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { Logger } from '../observability/logger';
import type { ProviderConfigRepository } from '../providers/configs/provider-config.repository';
import { PROVIDER_CONFIG_REPOSITORY } from '../providers/configs/provider-config-repository.token';
import { WorkspaceLlmProviders } from '../providers/configs/workspace-llm-providers';
import { unpricedModelMessage } from '../providers/model-price.resolver';
import { generateSortableId } from '../threads/sortable-id.generator';
import {
  AutomationChanges,
  AutomationDefinition,
  AutomationPatch,
  AutomationRunView,
  AutomationView,
  StoredAutomation,
  toAutomationRunView,
  toAutomationView,
} from './automation';
import { hasCostBudget } from './automation-budget';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { AutomationRunner } from './automation.runner';
import { CronSchedule } from './schedule/cron-schedule';
import { checkPlaceholders } from './schedule/prompt-placeholders';

/** Most automations one workspace may hold. */
export const AUTOMATIONS_PER_WORKSPACE_MAX = 100;
/** Runs answered by GET …/runs at most (the store keeps RUNS_KEPT_PER_AUTOMATION). */
export const RUNS_LISTED_MAX = 200;

/** POST /api/ai/automations, validated at the edge (CreateAutomationDto); `enabled` defaults to true. */
export type NewAutomation = Omit<AutomationDefinition, 'enabled'> & { enabled?: boolean };

const logger = new Logger('automations');

/**
 * The workspace's automations: stored prompts that run on a schedule, as their
 * creator, through the same agent as chat. Checked before they are stored, so that a run never fails on
 * its definition: the graph exists in the workspace (404), the cron expression and the time zone are
 * valid and never fire twice within a minute over the whole cycle (400), a cost budget's model has a
 * price (400), every placeholder is known (400), the prompt fits MESSAGE_MAX_CHARS (413), the provider
 * configuration exists in the workspace (404). The next slot is computed here on every change of the
 * schedule or of `enabled`; the runner moves it forward as it claims runs.
 */
@Injectable()
export class AutomationService {
  constructor(
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    @Inject(PROVIDER_CONFIG_REPOSITORY) private readonly providerConfigs: ProviderConfigRepository,
    private readonly graphs: GraphDataSourceFactory,
    private readonly runner: AutomationRunner,
    private readonly providers: WorkspaceLlmProviders,
    @Inject(AUTOMATION_CLOCK) private readonly clock: AutomationClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(principal: Principal): Promise<AutomationView[]> {
    const automations = await this.automations.list(principal.workspace);
    const latest = new Map(
      (
        await this.automations.latestRuns(
          principal.workspace,
          automations.map((item) => item.automationId),
        )
      ).map((run) => [run.automationId, run]),
    );
    const now = this.clock.now();
    return automations.map((automation) =>
      toAutomationView(automation, latest.get(automation.automationId) ?? null, now),
    );
  }

  async get(principal: Principal, automationId: string): Promise<AutomationView> {
    return this.view(await this.stored(principal, automationId));
  }

  async create(principal: Principal, input: NewAutomation): Promise<AutomationView> {
    if ((await this.automations.count(principal.workspace)) >= AUTOMATIONS_PER_WORKSPACE_MAX) {
      throw AppError.badRequest(`A workspace holds at most ${AUTOMATIONS_PER_WORKSPACE_MAX} automations`);
    }
    const schedule = CronSchedule.parse(input.schedule);
    this.checkPrompt(input.prompt);
    await this.checkGraph(principal, input.graphKey);
    if (input.providerConfigId !== undefined) await this.checkProviderConfig(principal, input.providerConfigId);
    await this.checkPriced(principal, input);
    const now = this.clock.now();
    const enabled = input.enabled ?? true;
    const automation: StoredAutomation = {
      automationId: generateSortableId('aut_', now),
      workspace: principal.workspace,
      userId: principal.userId,
      userRole: principal.role,
      name: input.name,
      graphKey: input.graphKey,
      prompt: input.prompt,
      schedule: { ...input.schedule },
      enabled,
      ...(input.maxCostUsdPerRun !== undefined ? { maxCostUsdPerRun: input.maxCostUsdPerRun } : {}),
      ...(input.maxCostUsdPerMonth !== undefined ? { maxCostUsdPerMonth: input.maxCostUsdPerMonth } : {}),
      ...(input.providerConfigId !== undefined ? { providerConfigId: input.providerConfigId } : {}),
      nextRunTime: enabled ? schedule.nextAfter(now) : null,
      disabledReason: null,
      runningRunId: null,
      runLeaseExpiresAt: null,
      createdTime: now,
      updatedTime: now,
      promptEditor: { userId: principal.userId, role: principal.role },
    };
    await this.automations.insert(automation);
    logger.info('automation_created', {
      workspace: principal.workspace,
      automationId: automation.automationId,
      nextRunTime: automation.nextRunTime,
    });
    return toAutomationView(automation, null, now);
  }

  async update(principal: Principal, automationId: string, patch: AutomationPatch): Promise<AutomationView> {
    const current = await this.stored(principal, automationId);
    const changes: AutomationChanges = { ...patch };
    // Its runs act with no more than the role of whoever last set what they do.
    if (patch.prompt !== undefined || patch.schedule !== undefined)
      changes.promptEditor = { userId: principal.userId, role: principal.role };
    const schedule = patch.schedule ? CronSchedule.parse(patch.schedule) : null;
    if (patch.prompt !== undefined) this.checkPrompt(patch.prompt);
    if (patch.graphKey !== undefined) await this.checkGraph(principal, patch.graphKey);
    if (typeof patch.providerConfigId === 'string') await this.checkProviderConfig(principal, patch.providerConfigId);
    await this.checkPriced(principal, {
      maxCostUsdPerRun:
        patch.maxCostUsdPerRun === null ? undefined : (patch.maxCostUsdPerRun ?? current.maxCostUsdPerRun),
      maxCostUsdPerMonth:
        patch.maxCostUsdPerMonth === null ? undefined : (patch.maxCostUsdPerMonth ?? current.maxCostUsdPerMonth),
      providerConfigId:
        patch.providerConfigId === null ? undefined : (patch.providerConfigId ?? current.providerConfigId),
    });
    const enabled = patch.enabled ?? current.enabled;
    if (schedule || patch.enabled !== undefined) {
      // A new schedule, or a re-enabled one, starts from now: no catching up on slots from before.
      changes.nextRunTime = enabled
        ? (schedule ?? CronSchedule.parse(current.schedule)).nextAfter(this.clock.now())
        : null;
      changes.disabledReason = null;
    }
    const updated = await this.automations.update(principal.workspace, automationId, changes, this.clock.now());
    if (!updated) throw notFound();
    logger.info('automation_updated', {
      workspace: principal.workspace,
      automationId,
      fields: Object.keys(patch),
      nextRunTime: updated.nextRunTime,
    });
    return this.view(updated);
  }

  /** Deletes the automation and its run records; a run in progress on this instance is stopped. Its threads stay. */
  async delete(principal: Principal, automationId: string): Promise<void> {
    const current = await this.stored(principal, automationId);
    if (!(await this.automations.delete(principal.workspace, automationId))) throw notFound();
    if (current.runningRunId) this.runner.stop(current.runningRunId);
    logger.info('automation_deleted', { workspace: principal.workspace, automationId });
  }

  async runNow(principal: Principal, automationId: string): Promise<{ runId: string; threadId: string | null }> {
    await this.stored(principal, automationId);
    return this.runner.runNow(principal.workspace, automationId);
  }

  async runs(principal: Principal, automationId: string, limit: number): Promise<AutomationRunView[]> {
    await this.stored(principal, automationId);
    return (await this.automations.listRuns(principal.workspace, automationId, Math.min(limit, RUNS_LISTED_MAX))).map(
      toAutomationRunView,
    );
  }

  private async view(automation: StoredAutomation): Promise<AutomationView> {
    const [lastRun] = await this.automations.listRuns(automation.workspace, automation.automationId, 1);
    return toAutomationView(automation, lastRun ?? null, this.clock.now());
  }

  private async stored(principal: Principal, automationId: string): Promise<StoredAutomation> {
    const automation = await this.automations.get(principal.workspace, automationId);
    if (!automation) throw notFound();
    return automation;
  }

  private checkPrompt(prompt: string): void {
    if (prompt.trim().length === 0) throw AppError.badRequest('prompt must not be empty');
    const max = this.config.limits.messageMaxChars;
    if (prompt.length > max) throw new AppError('payload_too_large', `prompt is longer than ${max} characters`);
    checkPlaceholders(prompt);
  }

  private async checkGraph(principal: Principal, graphKey: string): Promise<void> {
    if (!(await this.graphs.forWorkspace(principal.workspace).getGraph(graphKey)))
      throw AppError.notFound(`Graph "${graphKey}" not found`);
  }

  /**
   * A cost budget is only kept on a model with a price: refused (400) when its runs' model (its own
   * configuration's, else the workspace's active one's, else the service's) has none. Checked again
   * when each run starts, since the active configuration may change (the run is then skipped_budget).
   */
  private async checkPriced(
    principal: Principal,
    budget: Pick<AutomationDefinition, 'maxCostUsdPerRun' | 'maxCostUsdPerMonth' | 'providerConfigId'>,
  ): Promise<void> {
    if (!hasCostBudget(budget)) return;
    const price = await this.providers.priceOfRun(principal.workspace, budget.providerConfigId);
    if (price.pricing === null) throw AppError.badRequest(unpricedModelMessage(price.provider, price.model));
  }

  private async checkProviderConfig(principal: Principal, configId: string): Promise<void> {
    if (!(await this.providerConfigs.get(principal.workspace, configId)))
      throw AppError.notFound(`Provider configuration "${configId}" not found`);
  }
}

function notFound(): AppError {
  return AppError.notFound('Automation not found');
}
