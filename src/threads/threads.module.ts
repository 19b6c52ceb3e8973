import { Module } from '@nestjs/common';
import { ThreadService } from './thread.service';

/**
 * Threads: ThreadService, the one service the agent and the transports use, on the ThreadRepository
 * adapter (THREAD_REPOSITORY) that the global PersistenceModule chose from STORE. History building
 * (toLlmMessages, sanitizeToolCallPairing, pruneHistoryBlocks, buildLlmHistory) and deriveThreadTitle
 * are plain functions, imported directly. ThreadService releases its leases before shutdown's last
 * phase, in which PersistenceModule closes the repository and then the connection.
 */
@Module({
  providers: [ThreadService],
  exports: [ThreadService],
})
export class ThreadsModule {}
