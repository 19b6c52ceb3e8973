import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { threadRepositoryProvider } from './thread-repository.provider';
import { ThreadStore } from './thread.store';

/**
 * Threads: the ThreadRepository adapter chosen from STORE, and ThreadStore, the one service the
 * agent and the transports use. History building (toLlmMessages, sanitizeToolCallPairing,
 * pruneHistoryBlocks, buildLlmHistory) and deriveThreadTitle are plain functions, imported directly.
 * The SQLite connection is DatabaseModule's: it closes it after ThreadStore released its leases.
 */
@Module({
  imports: [DatabaseModule],
  providers: [threadRepositoryProvider, ThreadStore],
  exports: [ThreadStore],
})
export class ThreadsModule {}
