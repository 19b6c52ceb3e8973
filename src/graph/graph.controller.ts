import { Body, Controller, Get, HttpCode, Inject, Optional, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Principal } from '../auth/principal';
import { RequireRole } from '../auth/require-role.decorator';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { nbaWorkflowDemo } from './demo/nba-workflow.demo';
import { validateGraphDocumentBody } from './dto/graph-document-body.validator';
import { GraphDocumentDto } from './dto/graph-document.dto';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GraphImportResultDto } from './dto/graph-import-result.dto';
import { exportGraphDocument } from './graph-document.exporter';
import { GraphKeyPipe } from './graph-key.pipe';
import { GraphDataSourceFactory } from './graph-data-source.factory';
import { validateGraphImportInSlices } from './graph-import.validator';
import { GraphStore } from './graph-store';
import { GRAPH_STORE } from './graph-store.token';
import { GraphDocument } from './graph.types';

const GRAPH_KEY_PARAM = {
  name: 'graphKey',
  description: 'Key of the graph in your workspace',
  example: 'nba-workflow',
};

/** A small but complete import body for the Swagger examples. */
const IMPORT_EXAMPLE: GraphDocument = {
  graph: { ...nbaWorkflowDemo.graph, workspace: 'default' },
  nodes: nbaWorkflowDemo.nodes.filter((node) => ['root', 'fetch-api', 'error-handler'].includes(node._key)),
  edges: nbaWorkflowDemo.edges.filter((edge) =>
    ['root-to-fetch-api', 'fetch-api-to-error-handler'].includes(edge._key),
  ),
  nodeConfigs: nbaWorkflowDemo.nodeConfigs.filter((config) => ['api-call', 'log-node'].includes(config._key)),
};

const INTEGRITY_ERROR_EXAMPLE = {
  statusCode: 400,
  code: 'bad_request',
  message: 'The graph "nba-workflow" cannot be imported: 2 integrity problem(s)',
  details: [
    { field: 'edges[1].target', problems: ['target node "ghost" does not exist'] },
    { field: 'edges[0].sourceHandle', problems: ['handle "L-0" of node "root" is not an "out" handle'] },
  ],
};

@ApiTags('graphs')
@ApiBearerAuth()
@Controller('graphs')
export class GraphController {
  constructor(
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    private readonly dataSources: GraphDataSourceFactory,
    // Defaulted for hand-built controllers (unit tests); GraphModule injects the shared notifier and the configuration.
    private readonly notifier: GraphChangeNotifier = new GraphChangeNotifier(),
    @Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig,
  ) {}

  @Put(':graphKey')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Import (replace) a graph',
    description:
      "Replaces the graph, its nodes and edges in one transaction, and upserts the node configs into your workspace (the graph's " +
      '`workspace` is always yours). The document is checked first: unique keys, edges between existing nodes, sheets from ' +
      'sheetsList, handles of the right direction; every problem is listed and the previous graph stays as it was. Nodes whose ' +
      'content did not change keep their stored embedding. Admin only; body up to GRAPH_IMPORT_MAX_BYTES (5 MB by default).',
  })
  @ApiParam(GRAPH_KEY_PARAM)
  @ApiBody({ type: GraphDocumentDto, examples: { demo: { summary: 'Part of the demo graph', value: IMPORT_EXAMPLE } } })
  @ApiOkResponse({
    type: GraphImportResultDto,
    description: 'Stored counts.',
    schema: { example: { nodes: 3, edges: 2 } },
  })
  @ApiResponse({
    status: 400,
    description: 'Invalid body, or integrity problems (all listed in `details`).',
    schema: { example: INTEGRITY_ERROR_EXAMPLE },
  })
  @ApiResponse({ status: 401, description: 'Missing or invalid token.' })
  @ApiResponse({ status: 403, description: 'Not an admin.' })
  @ApiResponse({
    status: 409,
    description: 'The configured store is not owned by this service (ArangoDB): import through Nodius.',
    schema: {
      example: {
        statusCode: 409,
        code: 'read_only_store',
        message: 'The arango store is read-only for this service: import graphs through Nodius',
      },
    },
  })
  @ApiResponse({
    status: 413,
    description:
      'Body larger than GRAPH_IMPORT_MAX_BYTES, or more nodes than GRAPH_MAX_NODES (50,000) or edges than GRAPH_MAX_EDGES (100,000).',
    schema: {
      example: {
        statusCode: 413,
        code: 'payload_too_large',
        message: 'The graph has 60000 nodes: at most 50000 can be imported',
        details: { nodes: 60000, limit: 50000 },
      },
    },
  })
  async importGraph(
    @CurrentPrincipal() principal: Principal,
    @Param('graphKey', GraphKeyPipe) graphKey: string,
    // Not typed with the DTO: the global ValidationPipe would validate 50,000 nodes in one piece (see validateGraphDocumentBody).
    @Body() body: unknown,
  ): Promise<GraphImportResultDto> {
    if (!this.store.supportsImport) {
      throw new AppError(
        'read_only_store',
        `The ${this.store.kind} store is read-only for this service: import graphs through Nodius`,
      );
    }
    const limits = this.config?.limits;
    const validated = await validateGraphDocumentBody(body, {
      maxNodes: limits?.graphMaxNodes ?? Number.POSITIVE_INFINITY,
      maxEdges: limits?.graphMaxEdges ?? Number.POSITIVE_INFINITY,
    });
    const document = validated as unknown as GraphDocument;
    // The store validates again, but only against the document's own key: the path key is checked here, with every other problem.
    const { problems } = await validateGraphImportInSlices(graphKey, document);
    if (problems.length > 0) {
      throw AppError.badRequest(
        `The graph "${graphKey}" cannot be imported: ${problems.length} integrity problem(s)`,
        problems,
      );
    }
    const counts = await this.store.importGraph(principal.workspace, {
      ...document,
      nodeConfigs: document.nodeConfigs ?? [],
    });
    // Unsaved live state of the old graph is void; new and changed nodes get vectors in the background.
    this.notifier.notify({ kind: 'imported', workspace: principal.workspace, graphKey });
    return counts;
  }

  @Get(':graphKey')
  @ApiOperation({
    summary: 'Export a graph',
    description:
      'The graph of your workspace as the AI sees it: its document, nodes (embeddings left out), edges, and the node configs ' +
      'of the types its nodes use. The answer can be imported as is with PUT.',
  })
  @ApiParam(GRAPH_KEY_PARAM)
  @ApiOkResponse({ type: GraphDocumentDto, description: 'The graph document.', schema: { example: IMPORT_EXAMPLE } })
  @ApiResponse({ status: 401, description: 'Missing or invalid token.' })
  @ApiResponse({
    status: 404,
    description: 'No such graph in your workspace.',
    schema: { example: { statusCode: 404, code: 'not_found', message: 'Graph "nba-workflow" does not exist' } },
  })
  async exportGraph(
    @CurrentPrincipal() principal: Principal,
    @Param('graphKey', GraphKeyPipe) graphKey: string,
  ): Promise<GraphDocument> {
    const document = await exportGraphDocument(this.dataSources.forWorkspace(principal.workspace), graphKey);
    if (!document) throw AppError.notFound(`Graph "${graphKey}" does not exist`);
    return document;
  }
}
