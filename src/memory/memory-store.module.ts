import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { DatabaseModule } from '../database/database.module';
import type { MemoryRepository } from './memory.repository';
import { memoryRepositoryProvider } from './memory-repository.provider';
import { MEMORY_REPOSITORY } from './memory-repository.token';
import { MemoryRetention } from './retention/memory.retention';

/**
 * The memory records' store (the adapter chosen from STORE) and their retention: what both the
 * service (MemoryModule) and the `ai:trim-memory` command need.
 */
@Module({
  imports: [DatabaseModule],
  providers: [
    memoryRepositoryProvider,
    {
      provide: MemoryRetention,
      inject: [APP_CONFIG, MEMORY_REPOSITORY],
      useFactory: (config: AppConfig, repository: MemoryRepository) =>
        new MemoryRetention(repository, { level1Days: config.memory.level1RetentionDays, level2Days: config.memory.level2RetentionDays }),
    },
  ],
  exports: [MEMORY_REPOSITORY, MemoryRetention],
})
export class MemoryStoreModule {}
