import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from '../observability/logger';
import { TokenCounter } from './token-counter';

/**
 * Loads the tokenizer while the HTTP application boots, before it listens: the load blocks for
 * 1.3-4 s and would otherwise fall on whichever request first counts tokens. Only AppModule provides
 * it: the command-line tools share RagModule but load the tokenizer on their first count, if they
 * count at all (ai:embed-nodes never does).
 */
@Injectable()
export class TokenizerPreloader implements OnApplicationBootstrap {
  constructor(private readonly tokenCounter: TokenCounter) {}

  onApplicationBootstrap(): void {
    const durationMs = this.tokenCounter.load();
    if (durationMs > 0) new Logger('rag').info('tokenizer_loaded', { encoding: 'o200k_base', durationMs: Math.round(durationMs) });
  }
}
