import { LoggerService } from '@nestjs/common';
import { Logger } from './logger';

/** Routes Nest's own log calls (bootstrap, route mapping, uncaught errors) into the JSON logger. */
export class NestJsonLogger implements LoggerService {
  private readonly logger = new Logger('nest');

  log(message: unknown, context?: string): void {
    this.logger.info('nest_log', { message: String(message), context });
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error('nest_error', { message: String(message), trace, context });
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn('nest_warn', { message: String(message), context });
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug('nest_debug', { message: String(message), context });
  }

  verbose(message: unknown, context?: string): void {
    this.logger.debug('nest_verbose', { message: String(message), context });
  }
}
