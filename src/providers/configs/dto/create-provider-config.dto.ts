import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, IsUrl, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { ModelPricingDto } from './model-pricing.dto';

/** Shortest API key accepted: its last four characters are shown, so a shorter one would be shown whole. */
export const API_KEY_MIN_CHARS = 8;
export const API_KEY_MAX_CHARS = 4096;
export const BASE_URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** Body of POST /api/ai/provider-configs (docs/protocol.md §8.5). */
export class CreateProviderConfigDto {
  @ApiProperty({ description: 'Unique in the workspace.', example: 'Team DeepSeek', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiProperty({
    description:
      'An entry of config/providers.json (deepseek, openai, openai-mini, anthropic, qwen, ollama) or `openai-compatible` (then `baseUrl` is required).',
    example: 'deepseek',
    maxLength: 100,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  provider: string;

  @ApiProperty({ description: "The model the workspace's runs use.", example: 'deepseek-chat', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model: string;

  @ApiPropertyOptional({
    description: "Overrides the entry's base URL (http or https).",
    example: 'https://api.deepseek.com',
    maxLength: 2048,
  })
  @IsOptional()
  @IsUrl(BASE_URL_OPTIONS)
  @MaxLength(2048)
  baseUrl?: string;

  @ApiPropertyOptional({
    description:
      'Write-only: stored encrypted (AES-256-GCM, AI_SECRETS_KEY), never returned; answers show its last four characters. Required by entries that need a key.',
    example: 'sk-0123456789abcdef',
    minLength: API_KEY_MIN_CHARS,
    maxLength: API_KEY_MAX_CHARS,
  })
  @IsOptional()
  @IsString()
  @MinLength(API_KEY_MIN_CHARS)
  @MaxLength(API_KEY_MAX_CHARS)
  apiKey?: string;

  @ApiPropertyOptional({
    description:
      "The model's prices (USD per million tokens), for a model config/model-prices.json does not know or an endpoint that bills otherwise. " +
      'Without them, a model the table does not know on `openai-compatible` (or a free entry on another baseUrl) has no price, and cost budgets refuse it.',
    type: ModelPricingDto,
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => ModelPricingDto)
  pricing?: ModelPricingDto;
}
