import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import type { Interrupt } from '../../conversation/interrupt';
import { ThreadService } from '../../threads/thread.service';
import type { ThreadType } from '../../threads/thread.types';
import { APPROVALS_EXAMPLE } from './automation-api.examples';

/** One entry of the approval queue (docs/protocol.md §8.4). */
export interface ApprovalView {
  threadId: string;
  type: ThreadType;
  automationId?: string;
  graphKey: string;
  interrupt: Interrupt;
  /** When the interrupt was raised. */
  createdTime: number;
  /** `mcp`: a change an MCP client proposed (its thread has no model of ours to continue after the decision). */
  origin?: 'mcp';
}

/**
 * The approval queue (docs/protocol.md §8.4): the interrupts waiting for the caller, answered with the
 * existing POST /api/ai/resume (or `ai:resume`).
 */
@ApiTags('automations')
@ApiBearerAuth()
@Controller('ai/approvals')
export class ApprovalsController {
  constructor(private readonly threads: ThreadService) {}

  @Get()
  @ApiOperation({
    summary: 'What waits for you',
    description:
      'The pending interrupts you may resolve in your workspace, newest first (at most 200): proposals and questions of your own chat threads, ' +
      'and, for editors and admins, of every automation run. Answer each with POST /api/ai/resume.',
  })
  @ApiResponse({
    status: 200,
    description: 'The queue (empty when nothing waits).',
    schema: { example: APPROVALS_EXAMPLE },
  })
  @ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' })
  async list(@CurrentPrincipal() principal: Principal): Promise<ApprovalView[]> {
    return (await this.threads.listPending(principal)).map((thread) => ({
      threadId: thread.threadId,
      type: thread.type,
      ...(thread.automationId ? { automationId: thread.automationId } : {}),
      graphKey: thread.graphKey,
      interrupt: thread.pendingInterrupt.interrupt,
      createdTime: thread.pendingInterrupt.createdTime,
      ...(thread.pendingInterrupt.origin ? { origin: thread.pendingInterrupt.origin } : {}),
    }));
  }
}
