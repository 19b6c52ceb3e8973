import type { Database, Statement } from 'better-sqlite3';
import type { ProviderPricing } from '../../../config/provider-registry';
import { AppError } from '../../../errors/app-error';
import type { ProviderConfigChanges, StoredProviderConfig } from '../provider-config';
import type { ProviderConfigRepository, SealedProviderConfig } from '../provider-config.repository';

interface ConfigRow {
  workspace: string;
  config_id: string;
  name: string;
  provider: string;
  model: string;
  base_url: string | null;
  api_key_secret: string | null;
  api_key_last4: string | null;
  pricing: string | null;
  active: number;
  created_time: number;
  updated_time: number;
}

/** Columns a PATCH may set, by field of ProviderConfigChanges. */
const CHANGE_COLUMNS: Record<keyof ProviderConfigChanges, string> = {
  name: 'name',
  provider: 'provider',
  model: 'model',
  baseUrl: 'base_url',
  apiKeySecret: 'api_key_secret',
  apiKeyLast4: 'api_key_last4',
  pricing: 'pricing',
};

/**
 * ProviderConfigRepository on the embedded SQLite file (table of PROVIDER_CONFIGS_MIGRATION). Each
 * method is one statement or one `BEGIN IMMEDIATE` transaction; the workspace is in every statement
 * but the two operator reads of listSealed / replaceSealed's own row. The connection belongs to
 * SqlitePersistenceModule.
 */
export class SqliteProviderConfigRepository implements ProviderConfigRepository {
  private readonly statements: ReturnType<typeof prepare>;

  constructor(private readonly db: Database) {
    this.statements = prepare(db);
  }

  async list(workspace: string): Promise<StoredProviderConfig[]> {
    return (this.statements.list.all(workspace) as ConfigRow[]).map(toConfig);
  }

  async get(workspace: string, configId: string): Promise<StoredProviderConfig | null> {
    const row = this.statements.get.get(workspace, configId) as ConfigRow | undefined;
    return row ? toConfig(row) : null;
  }

  async getActive(workspace: string): Promise<StoredProviderConfig | null> {
    const row = this.statements.getActive.get(workspace) as ConfigRow | undefined;
    return row ? toConfig(row) : null;
  }

  async count(workspace: string): Promise<number> {
    return (this.statements.count.get(workspace) as { count: number }).count;
  }

  async insert(config: StoredProviderConfig): Promise<void> {
    try {
      this.statements.insert.run({
        workspace: config.workspace,
        config_id: config.configId,
        name: config.name,
        provider: config.provider,
        model: config.model,
        base_url: config.baseUrl ?? null,
        api_key_secret: config.apiKeySecret ?? null,
        api_key_last4: config.apiKeyLast4 ?? null,
        pricing: config.pricing ? JSON.stringify(config.pricing) : null,
        active: config.active ? 1 : 0,
        created_time: config.createdTime,
        updated_time: config.updatedTime,
      });
    } catch (error) {
      throw nameTaken(error) ?? error;
    }
  }

  async update(
    workspace: string,
    configId: string,
    changes: ProviderConfigChanges,
    updatedTime: number,
  ): Promise<StoredProviderConfig | null> {
    const fields = (Object.keys(changes) as Array<keyof ProviderConfigChanges>).filter(
      (field) => changes[field] !== undefined,
    );
    // Column names come from CHANGE_COLUMNS only; values are bound.
    const assignments = fields.map((field) => `${CHANGE_COLUMNS[field]} = @${field}`);
    const statement = this.db
      .prepare(`UPDATE ai_provider_configs SET ${[...assignments, 'updated_time = MAX(@now, updated_time + 1)'].join(', ')}
      WHERE workspace = @workspace AND config_id = @configId`);
    const params: Record<string, unknown> = { workspace, configId, now: updatedTime };
    for (const field of fields) params[field] = field === 'pricing' ? json(changes.pricing) : changes[field];
    try {
      if (statement.run(params).changes === 0) return null;
    } catch (error) {
      throw nameTaken(error) ?? error;
    }
    return this.get(workspace, configId);
  }

  async delete(workspace: string, configId: string): Promise<boolean> {
    return this.statements.delete.run(workspace, configId).changes > 0;
  }

  async activate(workspace: string, configId: string, updatedTime: number): Promise<StoredProviderConfig | null> {
    return this.db
      .transaction(() => {
        if (!this.statements.get.get(workspace, configId)) return null;
        this.statements.deactivate.run(updatedTime, workspace);
        this.statements.activate.run(updatedTime, workspace, configId);
        return toConfig(this.statements.get.get(workspace, configId) as ConfigRow);
      })
      .immediate();
  }

  async deactivate(workspace: string, updatedTime: number): Promise<boolean> {
    return this.statements.deactivate.run(updatedTime, workspace).changes > 0;
  }

  async listSealed(): Promise<SealedProviderConfig[]> {
    return (
      this.statements.listSealed.all() as Array<Pick<ConfigRow, 'workspace' | 'config_id' | 'name' | 'api_key_secret'>>
    ).map((row) => ({
      workspace: row.workspace,
      configId: row.config_id,
      name: row.name,
      apiKeySecret: row.api_key_secret as string,
    }));
  }

  async replaceSealed(workspace: string, configId: string, expected: string, resealed: string): Promise<boolean> {
    return this.statements.replaceSealed.run(resealed, workspace, configId, expected).changes === 1;
  }
}

function prepare(db: Database) {
  const statement = (sql: string): Statement => db.prepare(sql);
  return {
    list: statement('SELECT * FROM ai_provider_configs WHERE workspace = ? ORDER BY created_time, config_id'),
    get: statement('SELECT * FROM ai_provider_configs WHERE workspace = ? AND config_id = ?'),
    getActive: statement('SELECT * FROM ai_provider_configs WHERE workspace = ? AND active = 1'),
    count: statement('SELECT COUNT(*) AS count FROM ai_provider_configs WHERE workspace = ?'),
    insert: statement(`INSERT INTO ai_provider_configs
        (workspace, config_id, name, provider, model, base_url, api_key_secret, api_key_last4, pricing, active, created_time, updated_time)
      VALUES (@workspace, @config_id, @name, @provider, @model, @base_url, @api_key_secret, @api_key_last4, @pricing, @active, @created_time, @updated_time)`),
    delete: statement('DELETE FROM ai_provider_configs WHERE workspace = ? AND config_id = ?'),
    // The one active row first, then the new one: the partial unique index never sees two.
    deactivate: statement(
      'UPDATE ai_provider_configs SET active = 0, updated_time = MAX(?, updated_time + 1) WHERE workspace = ? AND active = 1',
    ),
    activate: statement(
      'UPDATE ai_provider_configs SET active = 1, updated_time = MAX(?, updated_time + 1) WHERE workspace = ? AND config_id = ?',
    ),
    listSealed: statement(
      'SELECT workspace, config_id, name, api_key_secret FROM ai_provider_configs WHERE api_key_secret IS NOT NULL ORDER BY workspace, config_id',
    ),
    replaceSealed: statement(
      'UPDATE ai_provider_configs SET api_key_secret = ? WHERE workspace = ? AND config_id = ? AND api_key_secret = ?',
    ),
  };
}

function toConfig(row: ConfigRow): StoredProviderConfig {
  return {
    configId: row.config_id,
    workspace: row.workspace,
    name: row.name,
    provider: row.provider,
    model: row.model,
    ...(row.base_url !== null ? { baseUrl: row.base_url } : {}),
    ...(row.api_key_secret !== null ? { apiKeySecret: row.api_key_secret } : {}),
    ...(row.api_key_last4 !== null ? { apiKeyLast4: row.api_key_last4 } : {}),
    ...(row.pricing !== null ? { pricing: JSON.parse(row.pricing) as ProviderPricing } : {}),
    active: row.active === 1,
    createdTime: row.created_time,
    updatedTime: row.updated_time,
  };
}

function json(pricing: ProviderPricing | null | undefined): string | null {
  return pricing ? JSON.stringify(pricing) : null;
}

/** The workspace already has a configuration of that name (UNIQUE (workspace, name)). */
function nameTaken(error: unknown): AppError | null {
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return AppError.conflict('A provider configuration with this name already exists in the workspace');
  }
  return null;
}
