import { Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphModule } from '../graph/graph.module';
import { OperationService } from './operation.service';
import type { OperationRepository } from './operation.repository';
import { OPERATION_REPOSITORY } from './operation-repository.token';
import { OperationRetention } from './operation.retention';

/**
 * Operations and the change log: OperationService, THE place every route changes a
 * graph through (approval, autonomous, ask_first, automations, client apply, undo and restore), and the retention of
 * the log. The store behind OPERATION_REPOSITORY comes from PersistenceModule, with the graph store it shares its
 * transactions with.
 */
@Module({
  imports: [GraphModule],
  providers: [
    OperationService,
    {
      provide: OperationRetention,
      inject: [OPERATION_REPOSITORY, APP_CONFIG],
      useFactory: (repository: OperationRepository, config: AppConfig) =>
        new OperationRetention(repository, config.agent.changeLogRetentionDays),
    },
  ],
  exports: [OperationService],
})
export class ChangesModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(OperationRetention) private readonly retention: OperationRetention) {}

  onApplicationBootstrap(): void {
    this.retention.start();
  }

  onApplicationShutdown(): void {
    this.retention.stop();
  }
}
