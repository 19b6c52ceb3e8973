import { Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphModule } from '../graph/graph.module';
import { ChangeOperations } from './change.operations';
import type { ChangeLogStore } from './change-log.store';
import { CHANGE_LOG_STORE } from './change-log-store.token';
import { ChangeLogRetention } from './change-log.retention';

/**
 * Operations and the change log (docs/agent.md, "Operations"): ChangeOperations, THE place every route changes a
 * graph through (approval, autonomous, ask_first, automations, client apply, undo and restore), and the retention of
 * the log. The store behind CHANGE_LOG_STORE comes from PersistenceModule, with the graph store it shares its
 * transactions with.
 */
@Module({
  imports: [GraphModule],
  providers: [
    ChangeOperations,
    {
      provide: ChangeLogRetention,
      inject: [CHANGE_LOG_STORE, APP_CONFIG],
      useFactory: (log: ChangeLogStore, config: AppConfig) =>
        new ChangeLogRetention(log, config.agent.changeLogRetentionDays),
    },
  ],
  exports: [ChangeOperations],
})
export class ChangesModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(ChangeLogRetention) private readonly retention: ChangeLogRetention) {}

  onApplicationBootstrap(): void {
    this.retention.start();
  }

  onApplicationShutdown(): void {
    this.retention.stop();
  }
}
