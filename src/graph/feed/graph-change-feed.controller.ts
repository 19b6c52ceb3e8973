import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import { Public } from '../../auth/public.decorator';
import { SyncTokenGuard } from '../../auth/sync-token.guard';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphChangesAcceptedDto } from '../dto/graph-changes-accepted.dto';
import { GraphChangesDto } from '../dto/graph-changes.dto';
import { GraphKeyPipe } from '../graph-key.pipe';
import { GraphChangeFeedService } from './graph-change-feed.service';

const fetchApi = nbaWorkflowDemo.nodes.find((node) => node._key === 'fetch-api');

const LIVE_EXAMPLE = {
  upsertNodes: [{ ...fetchApi, posX: 640, data: { url: 'https://api.nba-stats.example/v2/players', method: 'GET' } }],
  deleteNodes: ['disconnected-note'],
  saved: false,
};

@ApiTags('graphs')
@ApiBearerAuth()
@Controller('graphs')
export class GraphChangeFeedController {
  constructor(private readonly feed: GraphChangeFeedService) {}

  @Post(':graphKey/changes')
  @HttpCode(202)
  // The global JWT guard steps aside; SyncTokenGuard accepts the sync token or an admin JWT.
  @Public()
  @UseGuards(SyncTokenGuard)
  @ApiOperation({
    summary: "The sync server's change feed",
    description:
      "Unsaved live state (`saved:false`) goes to the graph's live overlay (of this instance; of every instance with REDIS_URL): " +
      'the AI (context, tools, export) sees it before the store. Saved changes (`saved:true`) clear those keys from the overlay; ' +
      'on the embedded store they are applied in one transaction (on ArangoDB Nodius saved them already). Nodes created or whose ' +
      'content changed are re-embedded in the background; the retrieval cache of the graph is cleared (on every instance with ' +
      'REDIS_URL). Caller: an admin JWT, or the sync server ' +
      'with `Authorization: Bearer <SYNC_TOKEN>` and `X-Workspace`.',
  })
  @ApiParam({ name: 'graphKey', description: 'Key of the graph in the workspace', example: 'nba-workflow' })
  @ApiHeader({
    name: 'X-Workspace',
    required: false,
    description: 'Required with the sync token: the workspace of the graph',
    example: 'default',
  })
  @ApiBody({
    type: GraphChangesDto,
    examples: {
      live: { summary: 'Unsaved edits', value: LIVE_EXAMPLE },
      saved: { summary: 'The same edits, saved', value: { ...LIVE_EXAMPLE, saved: true } },
    },
  })
  @ApiResponse({
    status: 202,
    type: GraphChangesAcceptedDto,
    description: 'Accepted; embeddings follow in the background.',
    schema: {
      example: {
        accepted: true,
        saved: false,
        changes: { upsertNodes: 1, deleteNodes: 1, upsertEdges: 0, deleteEdges: 0 },
        overlayEntries: 2,
        embeddingCandidates: 0,
      },
    },
  })
  @ApiResponse({
    status: 400,
    description:
      'Invalid body, a key both upserted and deleted, a missing X-Workspace with the sync token, or (saved) an edge that would dangle.',
  })
  @ApiResponse({ status: 401, description: 'Missing or invalid token (a wrong sync token included).' })
  @ApiResponse({ status: 403, description: 'A JWT without the admin role.' })
  @ApiResponse({
    status: 404,
    description: 'No such graph in the workspace.',
    schema: { example: { statusCode: 404, code: 'not_found', message: 'Graph "nba-workflow" does not exist' } },
  })
  @ApiResponse({
    status: 413,
    description: "Body too large, or the graph's live overlay would exceed 5,000 unsaved entries.",
  })
  async changes(
    @CurrentPrincipal() principal: Principal,
    @Param('graphKey', GraphKeyPipe) graphKey: string,
    @Body() body: GraphChangesDto,
  ): Promise<GraphChangesAcceptedDto> {
    return this.feed.accept(principal.workspace, graphKey, body);
  }
}
