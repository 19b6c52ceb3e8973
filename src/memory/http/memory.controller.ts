import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import { MemoryService } from '../memory.service';
import { MemoryEntryView } from './memory-entry.view';
import { MemoryQueryDto } from './memory-query.dto';

const MEMORY_EXAMPLE: MemoryEntryView[] = [
  {
    memoryId: 'mem0_4f1c2a9e0b7d4c6e8a1f3b5d7c9e0a2b',
    level: 0,
    createdTime: 1765287000123,
    createdAt: '2025-12-09T14:30:00.123+01:00',
    text: 'User: What does fetch-api do?\nAssistant: It calls the NBA stats API…\nTools used:\n- read_node_detail: {"_key":"fetch-api",…',
    nodesMentioned: ['fetch-api'],
    keyFindings: [],
    charRange: [0, 412],
    parentIds: [],
    stale: false,
  },
  {
    memoryId: 'mem1_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d',
    level: 1,
    createdTime: 1765287912004,
    createdAt: '2025-12-09T14:45:12.004+01:00',
    text: 'The user explored how fetch-api feeds filter-active and asked for retries on errors; a log node was added after error-handler.',
    nodesMentioned: ['error-handler', 'fetch-api', 'filter-active'],
    keyFindings: ['fetch-api has no retry', 'staging token: NBA_STAGING_TOKEN_42'],
    charRange: [0, 8214],
    parentIds: ['mem0_4f1c2a9e0b7d4c6e8a1f3b5d7c9e0a2b', 'mem0_…'],
    stale: true,
  },
];

const error = (statusCode: number, code: string, message: string) => ({
  schema: { example: { statusCode, code, message } },
});

/** docs/protocol.md §8.6: a thread's conversation memory, for its owner. */
@ApiTags('ai')
@ApiBearerAuth()
@Controller('ai/thread')
export class MemoryController {
  constructor(private readonly memory: MemoryService) {}

  @Get(':threadId/memory')
  @ApiOperation({
    summary: 'The memory of one of your threads',
    description:
      'Level 0: one record per turn; 1: short-term summaries of turns; 2: long-term summaries of level-1 summaries; oldest ' +
      'first. `stale`: a node the record mentions changed since it was written. Written in the background after each answer, ' +
      'so the latest turn may appear a moment later. See docs/memory.md.',
  })
  @ApiParam({ name: 'threadId', example: 'ai_mhx2k3l0a9f3c1e2b4d5f6a7' })
  @ApiResponse({
    status: 200,
    description: 'The records, oldest first (empty when nothing is remembered yet).',
    schema: { example: MEMORY_EXAMPLE },
  })
  @ApiResponse({
    status: 400,
    description: 'A bad or unknown query parameter, or since after until.',
    ...error(400, 'bad_request', 'level must be 0, 1 or 2'),
  })
  @ApiResponse({
    status: 401,
    description: 'Missing, expired or invalid token.',
    ...error(401, 'unauthorized', 'Token expired'),
  })
  @ApiResponse({
    status: 404,
    description: "No such thread of yours (also for another user's thread).",
    ...error(404, 'not_found', 'Thread not found'),
  })
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('threadId') threadId: string,
    @Query() query: MemoryQueryDto,
  ): Promise<MemoryEntryView[]> {
    return this.memory.list(principal, threadId, { level: query.level, since: query.since, until: query.until });
  }
}
