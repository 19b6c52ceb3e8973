import { Database } from 'arangojs';
import { ensureDocumentCollection } from '../../../database/arango/arango-collection.ensurer';
import { ARANGO_ERROR_NUM } from '../../../database/arango/arango-error.translator';
import { ArangoQueryExecutor } from '../../../database/arango/arango-query.executor';
import { AppError } from '../../../errors/app-error';
import type { ProviderConfigChanges, StoredProviderConfig } from '../provider-config';
import type { ProviderConfigRepository, SealedProviderConfig } from '../provider-config.repository';
import { ArangoProviderConfigDocument, ArangoProviderConfigQueries } from './arango-provider-config.queries';
import { runArangoSchemaSetup } from '../../../database/arango/arango-schema.setup';

/** The collection of this store, beside Nodius's own. */
export const ARANGO_PROVIDER_CONFIGS = 'nodius_ai_provider_configs';

/**
 * ProviderConfigRepository on ArangoDB (STORE=arango): one document per configuration, `_key` = config
 * id, every query of the API filtered on the workspace (ArangoProviderConfigQueries). A unique index on
 * (workspace, name) keeps names unique; a unique sparse index on `activeWorkspace` keeps one active
 * configuration per workspace. The connection belongs to ArangoPersistenceModule.
 */
export class ArangoProviderConfigRepository implements ProviderConfigRepository {
  private readonly queries: ArangoProviderConfigQueries;
  private readonly executor: ArangoQueryExecutor;

  constructor(db: Database) {
    this.queries = new ArangoProviderConfigQueries(db.collection(ARANGO_PROVIDER_CONFIGS));
    this.executor = new ArangoQueryExecutor(db);
  }

  /** Ensures the collection and its indexes (idempotent, safe when several instances start at once). */
  static async open(db: Database): Promise<ArangoProviderConfigRepository> {
    await runArangoSchemaSetup(db, 'provider-config schema', async () => {
      await ensureDocumentCollection(db, ARANGO_PROVIDER_CONFIGS);
      const collection = db.collection(ARANGO_PROVIDER_CONFIGS);
      await collection.ensureIndex({
        type: 'persistent',
        fields: ['workspace', 'name'],
        unique: true,
        inBackground: true,
      });
      await collection.ensureIndex({
        type: 'persistent',
        fields: ['activeWorkspace'],
        unique: true,
        sparse: true,
        inBackground: true,
      });
    });
    return new ArangoProviderConfigRepository(db);
  }

  async list(workspace: string): Promise<StoredProviderConfig[]> {
    return (
      await this.executor.all<ArangoProviderConfigDocument>(this.queries.list(workspace), 'providerConfigs.list')
    ).map(toConfig);
  }

  async get(workspace: string, configId: string): Promise<StoredProviderConfig | null> {
    const document = await this.executor.first<ArangoProviderConfigDocument>(
      this.queries.get(workspace, configId),
      'providerConfigs.get',
    );
    return document ? toConfig(document) : null;
  }

  async getActive(workspace: string): Promise<StoredProviderConfig | null> {
    const document = await this.executor.first<ArangoProviderConfigDocument>(
      this.queries.getActive(workspace),
      'providerConfigs.getActive',
    );
    return document ? toConfig(document) : null;
  }

  async count(workspace: string): Promise<number> {
    return (await this.executor.first<number>(this.queries.count(workspace), 'providerConfigs.count')) ?? 0;
  }

  async insert(config: StoredProviderConfig): Promise<void> {
    await this.write('providerConfigs.insert', () => this.executor.run(this.queries.insert(toDocument(config))));
  }

  async update(
    workspace: string,
    configId: string,
    changes: ProviderConfigChanges,
    updatedTime: number,
  ): Promise<StoredProviderConfig | null> {
    const defined = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as ProviderConfigChanges;
    const [document] = await this.write('providerConfigs.update', () =>
      this.executor.run<ArangoProviderConfigDocument>(this.queries.update(workspace, configId, defined, updatedTime)),
    );
    return document ? toConfig(document) : null;
  }

  async delete(workspace: string, configId: string): Promise<boolean> {
    return (await this.executor.all(this.queries.remove(workspace, configId), 'providerConfigs.delete')).length > 0;
  }

  async activate(workspace: string, configId: string, updatedTime: number): Promise<StoredProviderConfig | null> {
    const written = await this.executor.all<ArangoProviderConfigDocument>(
      this.queries.activate(workspace, configId, updatedTime),
      'providerConfigs.activate',
    );
    const activated = written.find((document) => document._key === configId);
    return activated ? toConfig(activated) : null;
  }

  async deactivate(workspace: string, updatedTime: number): Promise<boolean> {
    return (
      (await this.executor.all(this.queries.deactivate(workspace, updatedTime), 'providerConfigs.deactivate')).length >
      0
    );
  }

  async listSealed(): Promise<SealedProviderConfig[]> {
    return this.executor.all<SealedProviderConfig>(this.queries.listSealed(), 'providerConfigs.listSealed');
  }

  async replaceSealed(workspace: string, configId: string, expected: string, resealed: string): Promise<boolean> {
    return (
      (
        await this.executor.all(
          this.queries.replaceSealed(workspace, configId, expected, resealed),
          'providerConfigs.replaceSealed',
        )
      ).length > 0
    );
  }

  /** A write whose unique-name violation is the API's conflict, other failures translated as usual. */
  private async write<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if ((error as { errorNum?: number }).errorNum === ARANGO_ERROR_NUM.uniqueConstraintViolated) {
        throw AppError.conflict('A provider configuration with this name already exists in the workspace');
      }
      throw this.executor.translate(error, operation);
    }
  }
}

function toDocument(config: StoredProviderConfig): ArangoProviderConfigDocument {
  const { configId, ...fields } = config;
  return { _key: configId, ...fields, ...(config.active ? { activeWorkspace: config.workspace } : {}) };
}

/** The stored fields only (not `_id`, `_rev`, `activeWorkspace`), absent optional ones left out. */
function toConfig(document: ArangoProviderConfigDocument): StoredProviderConfig {
  return {
    configId: document._key,
    workspace: document.workspace,
    name: document.name,
    provider: document.provider,
    model: document.model,
    ...(typeof document.baseUrl === 'string' ? { baseUrl: document.baseUrl } : {}),
    ...(typeof document.apiKeySecret === 'string' ? { apiKeySecret: document.apiKeySecret } : {}),
    ...(typeof document.apiKeyLast4 === 'string' ? { apiKeyLast4: document.apiKeyLast4 } : {}),
    ...(document.pricing && typeof document.pricing === 'object' ? { pricing: { ...document.pricing } } : {}),
    active: document.active === true,
    createdTime: document.createdTime,
    updatedTime: document.updatedTime,
  };
}
