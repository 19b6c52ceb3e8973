import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Express } from 'express';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Logger } from '../observability/logger';
import { playgroundRouter, PLAYGROUND_PATH } from './playground.router';

const logger = new Logger('playground');

/**
 * Serves the playground page (client/playground, built into PLAYGROUND_DIR by `npm run build`) at
 * /playground. AppModule imports it only when the playground is enabled, so nothing
 * is served otherwise. Mounted once Nest's routes are registered and before its not-found handler,
 * so unknown paths (and unknown files under /playground) keep their 404 in the error shape.
 */
@Module({})
export class PlaygroundModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const { assetsDir } = this.config.playground;
    if (!existsSync(path.join(assetsDir, 'index.html'))) {
      logger.warn('playground_not_built', { assetsDir, hint: 'run `npm run build` (or set PLAYGROUND_DIR)' });
      return;
    }
    const app = this.adapterHost.httpAdapter.getInstance<Express>();
    app.use(
      PLAYGROUND_PATH,
      playgroundRouter({
        assetsDir,
        authMode: this.config.auth.mode,
        serveSourceMaps: this.config.env !== 'production',
      }),
    );
    logger.info('playground_enabled', { path: PLAYGROUND_PATH, assetsDir });
  }
}
