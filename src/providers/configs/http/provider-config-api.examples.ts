/** Swagger examples of /api/ai/provider-configs (docs/protocol.md §8.5). */

export const PROVIDER_CONFIG_EXAMPLE = {
  configId: 'pc_mhx2k3l0a1b2c3d4e5f6a7b8',
  name: 'Team DeepSeek',
  provider: 'deepseek',
  model: 'deepseek-chat',
  apiKeyLast4: 'cdef',
  active: true,
  createdTime: 1_764_000_000_000,
  updatedTime: 1_764_000_360_000,
};

export const LOCAL_CONFIG_EXAMPLE = {
  configId: 'pc_mhx2k9z0f0e1d2c3b4a59687',
  name: 'Local vLLM',
  provider: 'openai-compatible',
  model: 'qwen2.5-coder',
  baseUrl: 'http://vllm.internal:8000/v1',
  active: false,
  createdTime: 1_764_000_100_000,
  updatedTime: 1_764_000_100_000,
};

export const PROVIDER_CONFIG_ERRORS = {
  badRequest: {
    statusCode: 400,
    code: 'bad_request',
    message:
      'AI_SECRETS_KEY is not set on this service: a configuration with an API key cannot be stored (docs/provider-configs.md)',
  },
  unknownProvider: {
    statusCode: 400,
    code: 'bad_request',
    message:
      'provider must be one of deepseek, openai, openai-mini, anthropic, qwen, ollama, openai-compatible (config/providers.json); got "mistral"',
  },
  forbidden: { statusCode: 403, code: 'forbidden', message: 'This action requires the role admin' },
  notFound: { statusCode: 404, code: 'not_found', message: 'Provider configuration not found' },
  noActive: {
    statusCode: 404,
    code: 'not_found',
    message: "No active provider configuration: the workspace uses the service's own provider",
  },
  nameTaken: {
    statusCode: 409,
    code: 'conflict',
    message: 'A provider configuration with this name already exists in the workspace',
  },
};
