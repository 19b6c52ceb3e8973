import { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createApp } from '../../src/app.factory';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { AutomationClock } from '../../src/automations/automation-clock';
import { AppConfig } from '../../src/config/app-config';
import { loadAppConfig } from '../../src/config/load-app-config';

export interface TestApp {
  app: INestApplication;
  /** http://127.0.0.1:<random port> */
  url: string;
  dataDir: string;
  config: AppConfig;
  /** Closes the app; removes the data directory unless keepData (restart tests). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface StartTestAppOptions {
  /** Runs after the app is built and before it initialises and listens (e.g. app.useWebSocketAdapter for instrumentation). */
  beforeListen?: (app: INestApplication) => void;
  /** The automations' clock (a ManualClock to move time in a test). */
  clock?: AutomationClock;
  /** Where the app's spans go (an InMemorySpanExporter), tracing on without an OTLP endpoint. */
  spanExporter?: SpanExporter;
}

/**
 * Boots the real application on a random port with an explicit environment (never process.env,
 * so a developer's API keys cannot leak into a test) and a fresh data directory unless one is given.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: StartTestAppOptions = {},
): Promise<TestApp> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'graph-ai-test-'));
  const config = loadAppConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'error',
    AUTH_MODE: 'none',
    ...env,
    DATA_DIR: dataDir,
  });
  const app = await createApp(config, { clock: options.clock, spanExporter: options.spanExporter });
  options.beforeListen?.(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    dataDir,
    config,
    async close(options) {
      await app.close();
      if (!options?.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
