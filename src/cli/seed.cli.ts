import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { AppConfig } from '../config/app-config';
import { loadAppConfig } from '../config/load-app-config';
import { SQLITE_FILE_NAME } from '../database/sqlite/sqlite-database.opener';
import { DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphStore } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { configureLogging } from '../observability/logger';
import { createNestLogger } from '../observability/nest-logger';
import { PersistenceModule } from '../persistence/persistence.module';

/**
 * `npm run seed`: loads (replaces) the demo graph `nba-workflow` in workspace `default` of the
 * configured store (STORE, DATA_DIR or ARANGO_*, from the environment and `.env` like the service),
 * opened through PersistenceModule as the service opens it. Exit code 0 on success, 1 on failure.
 */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig(process.env);
  configureLogging({ level: 'warn' });
  // abortOnError false: a store that cannot be opened is a clear message and exit code 1, not an abort.
  const app = await NestFactory.createApplicationContext(PersistenceModule.forRoot(config), {
    logger: createNestLogger(),
    abortOnError: false,
  });
  try {
    const store = app.get<GraphStore>(GRAPH_STORE);
    const counts = await store.importGraph(DEMO_WORKSPACE, nbaWorkflowDemo);
    process.stdout.write(
      `Seeded graph "${nbaWorkflowDemo.graph._key}" in workspace "${DEMO_WORKSPACE}" of ${storeName(config)}: ` +
        `${counts.nodes} nodes, ${counts.edges} edges, ${nbaWorkflowDemo.nodeConfigs.length} node configs.\n`,
    );
  } finally {
    await app.close();
  }
}

function storeName(config: AppConfig): string {
  const { store } = config;
  return store.kind === 'sqlite' ? path.join(store.dataDir, SQLITE_FILE_NAME) : `ArangoDB database "${store.database}"`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    // A ConfigValidationError's message names every bad variable.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Seeding failed: ${message}\n`);
    process.exit(1);
  },
);
