import { ALWAYS_SEND_MIGRATION } from '../../always-send/sqlite/always-send.sqlite-migration';
import { OPERATION_TABLES_MIGRATION } from '../../changes/sqlite/operation-tables.sqlite-migration';
import { AUTOMATION_TOO_LARGE_MIGRATION } from '../../automations/sqlite/automation-too-large.sqlite-migration';
import { AUTOMATION_ACTING_MIGRATION } from '../../automations/sqlite/automation-acting.sqlite-migration';
import { AUTOMATION_SPEND_MIGRATION } from '../../automations/sqlite/automation-spend.sqlite-migration';
import { AUTOMATIONS_MIGRATION } from '../../automations/sqlite/automations.sqlite-migration';
import { MEMBER_ROLES_MIGRATION } from '../../policy/member-roles/sqlite/member-roles.sqlite-migration';
import { ACTION_POLICIES_MIGRATION } from '../../policy/sqlite/action-policies.sqlite-migration';
import { GRAPH_EMBEDDING_CHANGES_MIGRATION } from '../../graph/sqlite/graph-embedding-changes.sqlite-migration';
import { GRAPH_NODE_CHANGES_MIGRATION } from '../../graph/sqlite/graph-node-changes.sqlite-migration';
import { GRAPH_SEARCH_SNAPSHOTS_MIGRATION } from '../../graph/sqlite/graph-search-snapshots.sqlite-migration';
import { GRAPH_NODES_BY_GRAPH_MIGRATION } from '../../graph/sqlite/graph-nodes-by-graph.sqlite-migration';
import { NODE_CONFIG_REVISIONS_MIGRATION } from '../../graph/sqlite/node-config-revisions.sqlite-migration';
import { MEMORY_TABLES_MIGRATION } from '../../memory/sqlite/memory-tables.sqlite-migration';
import { PROVIDER_CONFIG_PRICING_MIGRATION } from '../../providers/configs/sqlite/provider-config-pricing.sqlite-migration';
import { PROVIDER_CONFIGS_MIGRATION } from '../../providers/configs/sqlite/provider-configs.sqlite-migration';
import { IDEMPOTENCY_RESERVATION_TOKEN_MIGRATION } from '../../threads/sqlite/idempotency-reservation-token.sqlite-migration';
import { THREAD_TABLES_MIGRATION } from '../../threads/sqlite/thread-tables.sqlite-migration';
import { THREAD_TYPE_MIGRATION } from '../../threads/sqlite/thread-type.sqlite-migration';
import { SqliteMigration } from './sqlite-migration';

/**
 * THE schema history of the embedded store (`<DATA_DIR>/ai.sqlite`), one ordered list for every module.
 *
 * How to add tables (threads, usage, ...):
 *   1. APPEND an entry at the end with the next version number and a new snake_case name. The entry may
 *      live in its module's own file (e.g. `src/threads/sqlite/thread-tables.sqlite-migration.ts`
 *      exporting a `SqliteMigration`) and be imported here: this list stays the one place that orders them.
 *   2. Never edit, reorder or delete an entry once committed: files in the field already recorded it.
 *      A fix is a new migration (ALTER TABLE, CREATE INDEX, or create-copy-drop-rename).
 *   3. `up(db)` only runs SQL; it is already inside the runner's BEGIN IMMEDIATE transaction
 *      (see sqlite-migration.runner.ts), so no BEGIN/COMMIT and no PRAGMA that cannot run in a transaction.
 *   4. Scope tenant data by a `workspace` column (or a foreign key to a row that has one).
 * The runner applies pending entries at start, records them in `schema_migrations`, and refuses a file
 * where a version was recorded under another name (two branches claimed one number: renumber yours).
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'graph_store',
    up(db) {
      db.exec(`
        -- One row per (workspace, graph key): the same key in two workspaces is two graphs.
        -- AUTOINCREMENT: an id is never reused, so (id, revision) identifies one state of one graph.
        CREATE TABLE graphs (
          id                 INTEGER PRIMARY KEY AUTOINCREMENT,
          workspace          TEXT    NOT NULL,
          graph_key          TEXT    NOT NULL,
          document           TEXT    NOT NULL, -- the Graph as JSON, unknown fields kept
          revision           INTEGER NOT NULL DEFAULT 1, -- bumped by every change of nodes, edges, document or node configs
          embedding_revision INTEGER NOT NULL DEFAULT 1, -- bumped when stored vectors change
          created_at         INTEGER NOT NULL,
          updated_at         INTEGER NOT NULL,
          UNIQUE (workspace, graph_key)
        );

        -- The row id keeps insertion order, which is the order nodes are listed in.
        CREATE TABLE graph_nodes (
          id              INTEGER PRIMARY KEY,
          graph_id        INTEGER NOT NULL REFERENCES graphs (id) ON DELETE CASCADE,
          node_key        TEXT    NOT NULL,
          type            TEXT    NOT NULL,
          sheet           TEXT    NOT NULL,
          document        TEXT    NOT NULL, -- the node as JSON without embedding fields, unknown fields kept
          embedding       BLOB,             -- Float32 little-endian
          embedding_model TEXT,
          embedding_hash  TEXT,
          UNIQUE (graph_id, node_key)
        );
        CREATE INDEX graph_nodes_by_sheet ON graph_nodes (graph_id, sheet);
        CREATE INDEX graph_nodes_by_type ON graph_nodes (graph_id, type);

        -- An edge cannot outlive its nodes: deleting a node deletes its edges.
        CREATE TABLE graph_edges (
          id       INTEGER PRIMARY KEY,
          graph_id INTEGER NOT NULL REFERENCES graphs (id) ON DELETE CASCADE,
          edge_key TEXT    NOT NULL,
          sheet    TEXT    NOT NULL,
          source   TEXT    NOT NULL,
          target   TEXT    NOT NULL,
          document TEXT    NOT NULL,
          UNIQUE (graph_id, edge_key),
          FOREIGN KEY (graph_id, source) REFERENCES graph_nodes (graph_id, node_key) ON DELETE CASCADE,
          FOREIGN KEY (graph_id, target) REFERENCES graph_nodes (graph_id, node_key) ON DELETE CASCADE
        );
        CREATE INDEX graph_edges_by_source ON graph_edges (graph_id, source);
        CREATE INDEX graph_edges_by_target ON graph_edges (graph_id, target);
        CREATE INDEX graph_edges_by_sheet ON graph_edges (graph_id, sheet);

        -- Custom node types belong to a workspace, shared by its graphs.
        CREATE TABLE node_configs (
          workspace  TEXT    NOT NULL,
          config_key TEXT    NOT NULL,
          document   TEXT    NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (workspace, config_key)
        );
      `);
    },
  },
  THREAD_TABLES_MIGRATION,
  NODE_CONFIG_REVISIONS_MIGRATION,
  GRAPH_NODE_CHANGES_MIGRATION,
  GRAPH_EMBEDDING_CHANGES_MIGRATION,
  ACTION_POLICIES_MIGRATION,
  THREAD_TYPE_MIGRATION,
  PROVIDER_CONFIGS_MIGRATION,
  AUTOMATIONS_MIGRATION,
  MEMORY_TABLES_MIGRATION,
  IDEMPOTENCY_RESERVATION_TOKEN_MIGRATION,
  OPERATION_TABLES_MIGRATION,
  AUTOMATION_ACTING_MIGRATION,
  MEMBER_ROLES_MIGRATION,
  PROVIDER_CONFIG_PRICING_MIGRATION,
  AUTOMATION_SPEND_MIGRATION,
  GRAPH_SEARCH_SNAPSHOTS_MIGRATION,
  ALWAYS_SEND_MIGRATION,
  AUTOMATION_TOO_LARGE_MIGRATION,
  GRAPH_NODES_BY_GRAPH_MIGRATION,
];
