import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ModelPricingDto } from './model-pricing.dto';
import { API_KEY_MAX_CHARS, API_KEY_MIN_CHARS, BASE_URL_OPTIONS } from './create-provider-config.dto';

/** Body of PATCH /api/ai/provider-configs/:configId: any subset of the POST fields; null removes `baseUrl` or `apiKey`. */
export class UpdateProviderConfigDto {
  @ApiPropertyOptional({ example: 'Team DeepSeek (reasoner)', maxLength: 100 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ example: 'deepseek', maxLength: 100 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  provider?: string;

  @ApiPropertyOptional({ example: 'deepseek-reasoner', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model?: string;

  @ApiPropertyOptional({
    description: "null: back to the entry's base URL.",
    example: 'https://gateway.example.com/deepseek',
    nullable: true,
    maxLength: 2048,
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsUrl(BASE_URL_OPTIONS)
  @MaxLength(2048)
  baseUrl?: string | null;

  @ApiPropertyOptional({
    description: 'Write-only; null removes the key.',
    example: 'sk-fedcba9876543210',
    nullable: true,
    minLength: API_KEY_MIN_CHARS,
    maxLength: API_KEY_MAX_CHARS,
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsString()
  @MinLength(API_KEY_MIN_CHARS)
  @MaxLength(API_KEY_MAX_CHARS)
  apiKey?: string | null;

  @ApiPropertyOptional({ description: 'null removes them.', type: ModelPricingDto, nullable: true })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @ValidateNested()
  @Type(() => ModelPricingDto)
  pricing?: ModelPricingDto | null;
}
