import type { ModuleRef } from '@nestjs/core';
import { ALWAYS_SEND_REPOSITORY } from '../always-send/always-send-repository.token';
import { AUTOMATION_REPOSITORY } from '../automations/automation-repository.token';
import { OPERATION_REPOSITORY } from '../changes/operation-repository.token';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { MEMORY_REPOSITORY } from '../memory/memory-repository.token';
import { PROVIDER_CONFIG_REPOSITORY } from '../providers/configs/provider-config-repository.token';
import { ACTION_POLICY_REPOSITORY } from '../policy/action-policy-repository.token';
import { MEMBER_ROLE_REPOSITORY } from '../policy/member-roles/member-role-repository.token';
import { THREAD_REPOSITORY } from '../threads/thread-repository.token';

/**
 * The injection tokens every persistence module provides, one adapter each, on its own connection.
 * A new store adds its token here and one provider to each
 * persistence module; persistence.module.spec.ts checks that both provide every token.
 */
export const PERSISTED_STORES = [
  GRAPH_STORE,
  THREAD_REPOSITORY,
  ACTION_POLICY_REPOSITORY,
  PROVIDER_CONFIG_REPOSITORY,
  AUTOMATION_REPOSITORY,
  MEMORY_REPOSITORY,
  OPERATION_REPOSITORY,
  MEMBER_ROLE_REPOSITORY,
  ALWAYS_SEND_REPOSITORY,
] as const;

/** A store may hold something to release (in-memory indexes, timers); its connection is not its to close. */
interface ClosableStore {
  close?(): Promise<void> | void;
}

/**
 * Closes the module's stores, the last listed first, then the connection (even when a store failed to
 * close). Called from a persistence module's onApplicationShutdown: every writer finished in the
 * earlier shutdown phases (runs stopped, the embedding queue drained, leases released).
 */
export async function closePersistence(moduleRef: ModuleRef, closeConnection: () => void): Promise<void> {
  try {
    for (const token of [...PERSISTED_STORES].reverse()) {
      await moduleRef.get<ClosableStore>(token, { strict: true }).close?.();
    }
  } finally {
    closeConnection();
  }
}
