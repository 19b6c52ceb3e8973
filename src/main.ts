import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { createApp } from './app.factory';
import { ConfigValidationError } from './config/config-validation.error';
import { applyHeapGrowth } from './config/heap-growth';
import { loadAppConfig } from './config/load-app-config';
import { Logger } from './observability/logger';

const logger = new Logger('main');

async function bootstrap(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig(process.env);
  applyHeapGrowth(config.server.heapGrowingPercent);
  const app = await createApp(config);

  let shuttingDown = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutdown_started', { signal, timeoutMs: config.server.shutdownTimeoutMs });
    // In-flight requests get until the timeout to finish; then we leave anyway.
    setTimeout(() => {
      logger.warn('shutdown_timeout', { timeoutMs: config.server.shutdownTimeoutMs });
      process.exit(1);
    }, config.server.shutdownTimeoutMs).unref();
    await app.close();
    logger.info('shutdown_complete', {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen(config.server.port, config.server.host);
  logger.info('service_started', { port: config.server.port, host: config.server.host, store: config.store.kind });
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigValidationError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    logger.error('startup_failed', {
      errorName: error instanceof Error ? error.name : typeof error,
      errorMessage: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
  }
  process.exit(1);
});
