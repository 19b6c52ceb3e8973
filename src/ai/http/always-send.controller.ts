import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import { RequireRole } from '../../auth/require-role.decorator';
import { GraphKeyPipe } from '../../graph/graph-key.pipe';
import { AlwaysSendDto } from '../dto/always-send.dto';
import { AlwaysSendView, ManageAlwaysSend } from '../use-cases/manage-always-send.use-case';

const EXAMPLE: AlwaysSendView = {
  nodeKeys: ['fetch-api'],
  nodeTypes: ['filter'],
  updatedTime: 1764086400000,
  tokens: 412,
  maxTokens: 4000,
};

const DESCRIPTION =
  'Nodes and node types whose data is in the stable level 2 of every prompt of the graph (PROTOCOL §9.6): each ' +
  "node's whole configuration, each type's configuration and the data of the graph's nodes of that type. A block of a " +
  'message never loads them again. `tokens` is what that data takes now, `maxTokens` its share (AI_ALWAYS_SEND_MAX_TOKENS).';

@ApiTags('ai')
@ApiBearerAuth()
@Controller('ai/graphs')
export class AlwaysSendController {
  constructor(private readonly alwaysSend: ManageAlwaysSend) {}

  @Get(':graphKey/always-send')
  @ApiOperation({ summary: "A graph's always-sent nodes and node types", description: DESCRIPTION })
  @ApiParam({ name: 'graphKey', example: 'nba-workflow' })
  @ApiResponse({
    status: 200,
    description: 'The list (empty, without `updatedTime`, when never set).',
    schema: { example: EXAMPLE },
  })
  @ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' })
  @ApiResponse({ status: 404, description: 'No such graph in your workspace.' })
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('graphKey', GraphKeyPipe) graphKey: string,
  ): Promise<AlwaysSendView> {
    return this.alwaysSend.get(principal, graphKey);
  }

  @Put(':graphKey/always-send')
  @HttpCode(200)
  @RequireRole('editor', 'admin')
  @ApiOperation({ summary: "Replace a graph's always-sent list (editor, admin)", description: DESCRIPTION })
  @ApiParam({ name: 'graphKey', example: 'nba-workflow' })
  @ApiBody({ type: AlwaysSendDto, examples: { list: { value: { nodeKeys: ['fetch-api'], nodeTypes: ['filter'] } } } })
  @ApiResponse({ status: 200, description: 'The list as stored.', schema: { example: EXAMPLE } })
  @ApiResponse({
    status: 400,
    description:
      'An unknown field, a key that is not a node key, a node or node type the graph does not have, or data over its token share.',
    schema: {
      example: {
        statusCode: 400,
        code: 'bad_request',
        message:
          'The always-sent data would take ~5210 tokens of every prompt, over its share of 4000 (AI_ALWAYS_SEND_MAX_TOKENS): send fewer nodes or node types',
        details: { tokens: 5210, maxTokens: 4000 },
      },
    },
  })
  @ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' })
  @ApiResponse({ status: 403, description: 'A viewer.' })
  @ApiResponse({ status: 404, description: 'No such graph in your workspace.' })
  put(
    @CurrentPrincipal() principal: Principal,
    @Param('graphKey', GraphKeyPipe) graphKey: string,
    @Body() body: AlwaysSendDto,
  ): Promise<AlwaysSendView> {
    return this.alwaysSend.put(principal, graphKey, body);
  }
}
