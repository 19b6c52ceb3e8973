import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { loadAppConfig } from '../config/load-app-config';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { createGraphStore } from '../graph/graph-store.provider';
import { configureLogging } from '../observability/logger';

/**
 * `npm run seed`: loads (replaces) the demo graph `nba-workflow` in workspace `default` of the
 * configured store (STORE, DATA_DIR or ARANGO_*, from the environment and `.env` like the service).
 * Exit code 0 on success, 1 on failure.
 */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadAppConfig(process.env);
  configureLogging({ level: 'warn' });
  const sqlite = config.store.kind === 'sqlite' ? openSqliteDatabase(config.store.dataDir) : null;
  try {
    const store = await createGraphStore(config, sqlite);
    try {
      const counts = await store.importGraph(DEMO_WORKSPACE, nbaWorkflowDemo);
      const where = sqlite ? sqlite.name : `${config.store.kind} store`;
      process.stdout.write(
        `Seeded graph "${nbaWorkflowDemo.graph._key}" in workspace "${DEMO_WORKSPACE}" of ${where}: ` +
          `${counts.nodes} nodes, ${counts.edges} edges, ${nbaWorkflowDemo.nodeConfigs.length} node configs.\n`,
      );
    } finally {
      await store.close();
    }
  } finally {
    sqlite?.close();
  }
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
