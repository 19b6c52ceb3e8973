import { Module } from '@nestjs/common';
import { ThreadStore } from './thread.store';

/**
 * Threads: ThreadStore, the one service the agent and the transports use, on the ThreadRepository
 * adapter (THREAD_REPOSITORY) that the global PersistenceModule chose from STORE. History building
 * (toLlmMessages, sanitizeToolCallPairing, pruneHistoryBlocks, buildLlmHistory) and deriveThreadTitle
 * are plain functions, imported directly. ThreadStore releases its leases before shutdown's last
 * phase, in which PersistenceModule closes the repository and then the connection.
 */
@Module({
  providers: [ThreadStore],
  exports: [ThreadStore],
})
export class ThreadsModule {}
