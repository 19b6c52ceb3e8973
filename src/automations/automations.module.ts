import { DynamicModule, Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { GraphModule } from '../graph/graph.module';
import { ProvidersModule } from '../providers/providers.module';
import { ThreadsModule } from '../threads/threads.module';
import { AUTOMATION_CLOCK, AutomationClock, SYSTEM_CLOCK } from './automation-clock';
import { AutomationRunRecorder } from './automation-run.recorder';
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
 * Automations (docs/automations.md, docs/protocol.md §8.4): their routes and the approval queue, the
 * scheduler that starts due runs (AUTOMATIONS_ENABLED), the runner that runs them through the agent
 * (ChatService.runAutomation) and the recorder that keeps each run's record. The store behind
 * AUTOMATION_REPOSITORY comes from PersistenceModule.
 */
@Module({})
export class AutomationsModule {
  static forRoot(options: AutomationsModuleOptions = {}): DynamicModule {
    return {
      module: AutomationsModule,
      imports: [AiModule, GraphModule, ProvidersModule, ThreadsModule],
      controllers: [AutomationsController, ApprovalsController],
      providers: [
        { provide: AUTOMATION_CLOCK, useValue: options.clock ?? SYSTEM_CLOCK },
        AutomationService,
        AutomationRunner,
        AutomationRunRecorder,
        AutomationScheduler,
      ],
      exports: [AutomationScheduler],
    };
  }
}
