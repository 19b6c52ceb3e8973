import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Principal } from '../auth/principal';
import { RagContextRequestDto } from './dto/rag-context-request.dto';
import { RagContextResponse, RagContextService } from './rag-context.service';

const RESPONSE_EXAMPLE = {
  context: {
    graph: { _key: 'nba-workflow', name: 'NBA stats workflow', sheets: { '0': 'main', '1': 'data-processing' } },
    relevantNodes: [
      {
        _key: 'fetch-api',
        type: 'api-call',
        typeName: 'API Call',
        sheet: '0',
        sheetName: 'main',
        process:
          '// Fetch the active NBA players from the stats API; errors go to the second output.\nconst season = ...',
        handles: [{ side: 'L', points: [{ id: 'L-0', type: 'in', accept: 'any' }] }],
        dataSummary: '{"url":"https://api.nba-stats.example/v1/players","method":"GET","timeoutMs":5000}',
        origin: 'search',
        score: 0.0328,
      },
      {
        _key: 'root',
        type: 'starter',
        typeName: 'starter',
        sheet: '0',
        sheetName: 'main',
        process: '',
        handles: [],
        dataSummary: '',
        origin: 'neighbor',
      },
    ],
    relevantEdges: [
      {
        _key: 'root-to-fetch-api',
        sheet: '0',
        source: 'root',
        sourceHandle: 'R-0',
        target: 'fetch-api',
        targetHandle: 'L-0',
      },
    ],
    nodeTypeConfigs: [
      {
        _key: 'api-call',
        displayName: 'API Call',
        category: 'network',
        handlesSummary: 'L:in(any), R:out(object), R:out(error)',
      },
    ],
    retrieval: { query: 'fetch api NBA', searchMode: 'bm25', cacheHit: false, durationMs: 1.8 },
  },
  toon:
    'RELEVANT NODES:\n[2]{key,type,sheet,process,data}:\n  fetch-api,api-call (API Call),main,"// Fetch the active NBA players...","{\\"url\\":...}"\n  root,starter,main,"",""\n\n' +
    'RELEVANT EDGES:\n[1]{from,to,label}:\n  "root:R-0","fetch-api:L-0",""',
  tokenEstimate: 142,
};

@ApiTags('rag')
@ApiBearerAuth()
@Controller('rag')
export class RagController {
  constructor(private readonly contexts: RagContextService) {}

  @Post('context')
  @HttpCode(200)
  @ApiOperation({
    summary: 'What the AI would see for a question',
    description:
      'Runs the GraphRAG retrieval (search, neighbourhood expansion, truncation) on a graph of your workspace and returns ' +
      'the context, its TOON encoding and its token count. Nodes are ranked: search hits best first, then the neighbours ' +
      'added by the expansion.',
  })
  @ApiBody({
    type: RagContextRequestDto,
    examples: {
      nba: { value: { graphKey: 'nba-workflow', query: 'fetch api NBA', options: { maxNodes: 20, maxDepth: 2 } } },
    },
  })
  @ApiOkResponse({ description: 'The retrieved context.', schema: { example: RESPONSE_EXAMPLE } })
  @ApiResponse({
    status: 400,
    description: 'Invalid body (unknown field, maxNodes outside 1-100, maxDepth outside 1-3, ...).',
  })
  @ApiResponse({ status: 401, description: 'Missing or invalid token.' })
  @ApiResponse({ status: 404, description: 'No such graph in your workspace.' })
  @ApiResponse({
    status: 413,
    description: '`query` longer than MESSAGE_MAX_CHARS (as a chat message).',
    schema: {
      example: { statusCode: 413, code: 'payload_too_large', message: 'query is longer than 16000 characters' },
    },
  })
  async context(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RagContextRequestDto,
  ): Promise<RagContextResponse> {
    return this.contexts.contextFor(principal.workspace, body.graphKey, body.query, {
      maxNodes: body.options?.maxNodes,
      maxDepth: body.options?.maxDepth,
    });
  }
}
