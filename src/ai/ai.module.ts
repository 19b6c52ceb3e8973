import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GraphModule } from '../graph/graph.module';
import { ProvidersModule } from '../providers/providers.module';
import { RagModule } from '../rag/rag.module';
import { ThreadsModule } from '../threads/threads.module';
import { ChatService } from './chat.service';
import { AiController } from './http/ai.controller';
import { ActiveRunRegistry } from './runs/active-run.registry';
import { AiGateway } from './socket/ai.gateway';

/**
 * The agent: ChatService (RAG context, tool loop with human-in-the-loop, thread commits) on top of
 * graph data, retrieval, the LLM provider and threads. Exports ChatService for the transports
 * (REST controller, Socket.IO gateway), which authenticate the caller and own per-request state.
 */
@Module({
  imports: [GraphModule, RagModule, ProvidersModule, ThreadsModule, AuthModule],
  controllers: [AiController],
  providers: [ChatService, ActiveRunRegistry, AiGateway],
  exports: [ChatService],
})
export class AiModule {}
