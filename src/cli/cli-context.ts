import { INestApplicationContext } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { loadAppConfig } from '../config/load-app-config';
import { NodeEmbeddingQueue } from '../embeddings/node-embedding.queue';
import { configureLogging } from '../observability/logger';
import { createNestLogger } from '../observability/nest-logger';
import { CliModule } from './cli.module';

/** Where a command writes: its report on `stdout`, problems on `stderr`. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown };
}

export interface CliContext {
  config: AppConfig;
  app: INestApplicationContext;
  close(): Promise<void>;
}

export interface CliContextOptions {
  /** Import the demo graph into an empty store, as the service does at first start. Default false. */
  seedDemo?: boolean;
}

/**
 * The one bootstrap of the command-line tools: the validated configuration from `env` (the entry
 * point loads `.env` first, like main.ts), then a standalone Nest application context of CliModule,
 * so the store, the embedding provider and the retriever are exactly the service's. Logs go to
 * stderr at warn level unless LOG_LEVEL=debug. When the demo is seeded, its embedding finishes
 * before the context is returned.
 */
export async function openCliContext(
  env: Record<string, string | undefined>,
  options: CliContextOptions = {},
): Promise<CliContext> {
  const config = loadAppConfig({ ...env, SEED_DEMO: options.seedDemo ? (env.SEED_DEMO ?? 'true') : 'false' });
  configureLogging({
    level: config.log.level === 'debug' ? 'debug' : 'warn',
    aiDebug: config.log.aiDebug,
    pretty: config.env === 'development',
  });
  // abortOnError false: a store or provider that cannot be opened is an error message and exit code 1 (runCli), not an abort.
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
    logger: createNestLogger(),
    abortOnError: false,
  });
  await app.get(NodeEmbeddingQueue, { strict: false })?.whenIdle();
  return { config, app, close: () => app.close() };
}

/** Runs a command's main function from its entry point: `.env` first, exit code from the result. */
export function runCli(
  main: (argv: string[], env: Record<string, string | undefined>, io: CliIo) => Promise<number>,
): void {
  if (existsSync('.env')) process.loadEnvFile('.env');
  main(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr }).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
