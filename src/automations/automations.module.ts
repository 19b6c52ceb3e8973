import { DynamicModule, Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { AUTOMATION_RUNS } from '../ai/runs/automation-runs.port';
import { GraphModule } from '../graph/graph.module';
import { PolicyModule } from '../policy/policy.module';
import { MemoryModule } from '../memory/memory.module';
import { ProviderConfigsModule } from '../providers/configs/provider-configs.module';
import { ProvidersModule } from '../providers/providers.module';
import { ThreadsModule } from '../threads/threads.module';
import { AUTOMATION_CLOCK, AutomationClock, SYSTEM_CLOCK } from './automation-clock';
import { AutomationRunRecorder } from './automation-run.recorder';
import { AutomationHousekeeper } from './automation.housekeeper';
import { AutomationRunThreads } from './automation-run.threads';
import { AutomationRunner } from './automation.runner';
import { AutomationScheduler } from './automation.scheduler';
import { AutomationService } from './automation.service';
import { ApprovalsController } from './http/approvals.controller';
import { AutomationsController } from './http/automations.controller';

export interface AutomationsModuleOptions {
  /** The time automations live by (tests move it); the system clock by default. */
  clock?: AutomationClock;
}

/**
 * Automations: their routes and the approval queue, the scheduler that starts due runs
 * (AUTOMATIONS_ENABLED), the runner that runs them through the agent (RunAutomation) and the recorder that
 * keeps each run's record, which the agent reaches through its AUTOMATION_RUNS port: provided here,
 * globally, so the agent injects it without importing this module (it never imports its consumers). The
 * store behind AUTOMATION_REPOSITORY comes from PersistenceModule.
 */
@Module({})
export class AutomationsModule {
  static forRoot(options: AutomationsModuleOptions = {}): DynamicModule {
    return {
      module: AutomationsModule,
      global: true,
      imports: [
        AiModule,
        GraphModule,
        ProvidersModule,
        ProviderConfigsModule,
        ThreadsModule,
        PolicyModule,
        MemoryModule,
      ],
      controllers: [AutomationsController, ApprovalsController],
      providers: [
        { provide: AUTOMATION_CLOCK, useValue: options.clock ?? SYSTEM_CLOCK },
        AutomationRunThreads,
        AutomationService,
        AutomationRunner,
        AutomationRunRecorder,
        AutomationHousekeeper,
        { provide: AUTOMATION_RUNS, useExisting: AutomationRunRecorder },
        AutomationScheduler,
      ],
      exports: [AutomationScheduler, AUTOMATION_RUNS],
    };
  }
}
