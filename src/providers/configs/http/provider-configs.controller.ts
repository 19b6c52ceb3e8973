import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../../auth/current-principal.decorator';
import { Principal } from '../../../auth/principal';
import { RequireRole } from '../../../auth/require-role.decorator';
import { CreateProviderConfigDto } from '../dto/create-provider-config.dto';
import { UpdateProviderConfigDto } from '../dto/update-provider-config.dto';
import { ProviderConfigView } from '../provider-config';
import { ProviderConfigService } from '../provider-config.service';
import { LOCAL_CONFIG_EXAMPLE, PROVIDER_CONFIG_ERRORS, PROVIDER_CONFIG_EXAMPLE } from './provider-config-api.examples';

const CONFIG_ID_PARAM = { name: 'configId', example: PROVIDER_CONFIG_EXAMPLE.configId };
const errorResponse = (status: number, description: string, example: object) =>
  ApiResponse({ status, description, schema: { example } });
const unauthorized = () => ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' });

/**
 * The workspace's own LLM endpoints (docs/protocol.md §8.5): editors and admins
 * read, admins write. The API key is write-only: answers carry its last four characters.
 */
@ApiTags('provider-configs')
@ApiBearerAuth()
@Controller('ai/provider-configs')
export class ProviderConfigsController {
  constructor(private readonly configs: ProviderConfigService) {}

  @Get()
  @RequireRole('editor', 'admin')
  @ApiOperation({
    summary: "The workspace's provider configurations",
    description: 'Oldest first; `active` marks the one new runs use.',
  })
  @ApiResponse({
    status: 200,
    description: "The configurations (empty: the workspace uses the service's own provider).",
    schema: { example: [PROVIDER_CONFIG_EXAMPLE, LOCAL_CONFIG_EXAMPLE] },
  })
  @unauthorized()
  @errorResponse(403, 'Viewers cannot read them.', {
    ...PROVIDER_CONFIG_ERRORS.forbidden,
    message: 'This action requires the role editor or admin',
  })
  list(@CurrentPrincipal() principal: Principal): Promise<ProviderConfigView[]> {
    return this.configs.list(principal.workspace);
  }

  @Post()
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Add a provider configuration',
    description:
      "Stored inactive: activate it to make the workspace's new chat and automation runs use it. The key is encrypted at rest with " +
      "AI_SECRETS_KEY; a configuration with a key is refused when the service has none. A configuration never uses the service's own keys.",
  })
  @ApiBody({
    type: CreateProviderConfigDto,
    examples: {
      registry: {
        summary: "A registry entry with the workspace's key",
        value: { name: 'Team DeepSeek', provider: 'deepseek', model: 'deepseek-chat', apiKey: 'sk-0123456789abcdef' },
      },
      local: {
        summary: 'Any OpenAI-compatible endpoint',
        value: {
          name: 'Local vLLM',
          provider: 'openai-compatible',
          model: 'qwen2.5-coder',
          baseUrl: 'http://vllm.internal:8000/v1',
        },
      },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'The stored configuration (inactive).',
    schema: { example: { ...PROVIDER_CONFIG_EXAMPLE, active: false } },
  })
  @ApiResponse({
    status: 400,
    description:
      'Invalid body, unknown provider, `openai-compatible` without baseUrl, a provider that needs a key without one, or a key while AI_SECRETS_KEY is not set.',
    content: {
      'application/json': {
        examples: {
          noSecretsKey: { value: PROVIDER_CONFIG_ERRORS.badRequest },
          unknownProvider: { value: PROVIDER_CONFIG_ERRORS.unknownProvider },
        },
      },
    },
  })
  @unauthorized()
  @errorResponse(403, 'Admins only.', PROVIDER_CONFIG_ERRORS.forbidden)
  @errorResponse(409, 'The workspace has a configuration of that name.', PROVIDER_CONFIG_ERRORS.nameTaken)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProviderConfigDto): Promise<ProviderConfigView> {
    return this.configs.create(principal.workspace, {
      name: body.name,
      provider: body.provider,
      model: body.model,
      baseUrl: body.baseUrl,
      apiKey: body.apiKey,
      pricing: body.pricing,
    });
  }

  @Get('active')
  @RequireRole('editor', 'admin')
  @ApiOperation({
    summary: 'The active configuration',
    description: "404 when the workspace uses the service's own provider (docs/protocol.md §6).",
  })
  @ApiResponse({
    status: 200,
    description: 'The configuration new runs use.',
    schema: { example: PROVIDER_CONFIG_EXAMPLE },
  })
  @unauthorized()
  @errorResponse(403, 'Viewers cannot read it.', {
    ...PROVIDER_CONFIG_ERRORS.forbidden,
    message: 'This action requires the role editor or admin',
  })
  @errorResponse(404, 'None is active.', PROVIDER_CONFIG_ERRORS.noActive)
  active(@CurrentPrincipal() principal: Principal): Promise<ProviderConfigView> {
    return this.configs.getActive(principal.workspace);
  }

  @Delete('active')
  @HttpCode(204)
  @RequireRole('admin')
  @ApiOperation({
    summary: "Go back to the service's own provider",
    description: 'No configuration stays active; they are all kept. Runs in progress keep their provider.',
  })
  @ApiResponse({ status: 204, description: "The workspace's new runs use the service's provider." })
  @unauthorized()
  @errorResponse(403, 'Admins only.', PROVIDER_CONFIG_ERRORS.forbidden)
  @errorResponse(404, 'None was active.', PROVIDER_CONFIG_ERRORS.noActive)
  async deactivate(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.configs.deactivate(principal.workspace);
  }

  @Get(':configId')
  @RequireRole('editor', 'admin')
  @ApiOperation({ summary: 'One configuration' })
  @ApiParam(CONFIG_ID_PARAM)
  @ApiResponse({ status: 200, description: 'The configuration.', schema: { example: PROVIDER_CONFIG_EXAMPLE } })
  @unauthorized()
  @errorResponse(403, 'Viewers cannot read it.', {
    ...PROVIDER_CONFIG_ERRORS.forbidden,
    message: 'This action requires the role editor or admin',
  })
  @errorResponse(404, 'No such configuration in your workspace.', PROVIDER_CONFIG_ERRORS.notFound)
  get(@CurrentPrincipal() principal: Principal, @Param('configId') configId: string): Promise<ProviderConfigView> {
    return this.configs.get(principal.workspace, configId);
  }

  @Patch(':configId')
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Change a configuration',
    description:
      "Any subset of the fields; `baseUrl: null` goes back to the entry's URL, `apiKey: null` removes the key. Runs in progress keep the provider they started with.",
  })
  @ApiParam(CONFIG_ID_PARAM)
  @ApiBody({
    type: UpdateProviderConfigDto,
    examples: {
      rotateKey: { summary: 'New key', value: { apiKey: 'sk-fedcba9876543210' } },
      model: { summary: 'Other model', value: { model: 'deepseek-reasoner' } },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'The changed configuration.',
    schema: { example: { ...PROVIDER_CONFIG_EXAMPLE, apiKeyLast4: '3210' } },
  })
  @errorResponse(
    400,
    'Invalid body, or a result that could not run (see POST).',
    PROVIDER_CONFIG_ERRORS.unknownProvider,
  )
  @unauthorized()
  @errorResponse(403, 'Admins only.', PROVIDER_CONFIG_ERRORS.forbidden)
  @errorResponse(404, 'No such configuration in your workspace.', PROVIDER_CONFIG_ERRORS.notFound)
  @errorResponse(409, 'The new name is taken.', PROVIDER_CONFIG_ERRORS.nameTaken)
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('configId') configId: string,
    @Body() body: UpdateProviderConfigDto,
  ): Promise<ProviderConfigView> {
    return this.configs.update(principal.workspace, configId, {
      name: body.name,
      provider: body.provider,
      model: body.model,
      baseUrl: body.baseUrl,
      apiKey: body.apiKey,
      pricing: body.pricing,
    });
  }

  @Delete(':configId')
  @HttpCode(204)
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Delete a configuration',
    description:
      "When it was active, the workspace goes back to the service's own provider. Automations naming it fail until changed.",
  })
  @ApiParam(CONFIG_ID_PARAM)
  @ApiResponse({ status: 204, description: 'Deleted.' })
  @unauthorized()
  @errorResponse(403, 'Admins only.', PROVIDER_CONFIG_ERRORS.forbidden)
  @errorResponse(404, 'No such configuration in your workspace.', PROVIDER_CONFIG_ERRORS.notFound)
  async delete(@CurrentPrincipal() principal: Principal, @Param('configId') configId: string): Promise<void> {
    await this.configs.delete(principal.workspace, configId);
  }

  @Post(':configId/activate')
  @HttpCode(200)
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Make it the active configuration',
    description:
      "The workspace's new chat and automation runs use it; runs in progress keep theirs. The previously active one is deactivated.",
  })
  @ApiParam(CONFIG_ID_PARAM)
  @ApiResponse({
    status: 200,
    description: 'The configuration, now active.',
    schema: { example: PROVIDER_CONFIG_EXAMPLE },
  })
  @unauthorized()
  @errorResponse(403, 'Admins only.', PROVIDER_CONFIG_ERRORS.forbidden)
  @errorResponse(404, 'No such configuration in your workspace.', PROVIDER_CONFIG_ERRORS.notFound)
  activate(@CurrentPrincipal() principal: Principal, @Param('configId') configId: string): Promise<ProviderConfigView> {
    return this.configs.activate(principal.workspace, configId);
  }
}
