import { ApiProperty } from '@nestjs/swagger';
import { IsNumber, Max, Min } from 'class-validator';
import type { ProviderPricing } from '../../../config/provider-registry';

/** Highest price accepted per million tokens: far above any model's, low enough to catch a typo in cents. */
export const PRICE_PER_MILLION_MAX = 1_000;

/** A configuration's own prices of its model, in USD per million tokens. */
export class ModelPricingDto implements ProviderPricing {
  @ApiProperty({ description: 'USD per million prompt tokens.', example: 2.5, minimum: 0 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(PRICE_PER_MILLION_MAX)
  inputPerMillion: number;

  @ApiProperty({
    description: "USD per million prompt tokens served from the provider's prompt cache.",
    example: 1.25,
    minimum: 0,
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(PRICE_PER_MILLION_MAX)
  inputCacheHitPerMillion: number;

  @ApiProperty({ description: 'USD per million completion tokens.', example: 10, minimum: 0 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(PRICE_PER_MILLION_MAX)
  outputPerMillion: number;
}
