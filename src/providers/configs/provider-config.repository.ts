import type { ProviderConfigChanges, StoredProviderConfig } from './provider-config';

/** A configuration whose sealed key a rotation re-encrypts (ProviderConfigRepository.listSealed). */
export interface SealedProviderConfig {
  workspace: string;
  configId: string;
  name: string;
  apiKeySecret: string;
}

/**
 * Provider configurations per workspace (port; adapters: SQLite, ArangoDB). Every query of the API
 * names the workspace; the two operator reads (listSealed: start-up check and key rotation) go over
 * all workspaces on purpose. Names are unique per workspace (conflict otherwise); at most one
 * configuration per workspace is active.
 */
export interface ProviderConfigRepository {
  /** The workspace's configurations, oldest first. */
  list(workspace: string): Promise<StoredProviderConfig[]>;
  get(workspace: string, configId: string): Promise<StoredProviderConfig | null>;
  getActive(workspace: string): Promise<StoredProviderConfig | null>;
  count(workspace: string): Promise<number>;
  /** Throws AppError conflict when the workspace already has a configuration of that name. */
  insert(config: StoredProviderConfig): Promise<void>;
  /** The changed configuration, or null when there is none (conflict on a taken name). */
  update(
    workspace: string,
    configId: string,
    changes: ProviderConfigChanges,
    updatedTime: number,
  ): Promise<StoredProviderConfig | null>;
  delete(workspace: string, configId: string): Promise<boolean>;
  /** Makes this configuration the workspace's active one (and no other), atomically; null when there is none. */
  activate(workspace: string, configId: string, updatedTime: number): Promise<StoredProviderConfig | null>;
  /** No configuration of the workspace is active any more (it uses the service's provider); false when none was. */
  deactivate(workspace: string, updatedTime: number): Promise<boolean>;
  /** Every configuration holding a sealed key, of every workspace (operators only: start-up check, rotation). */
  listSealed(): Promise<SealedProviderConfig[]>;
  /** Replaces a sealed key by its re-encryption, only when it is still `expected` (a concurrent change wins). */
  replaceSealed(workspace: string, configId: string, expected: string, resealed: string): Promise<boolean>;
  /** Releases what the adapter holds of its own (never the connection). */
  close?(): Promise<void>;
}
