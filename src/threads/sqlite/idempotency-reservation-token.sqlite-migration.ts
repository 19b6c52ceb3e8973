import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * The token of each Idempotency-Key reservation: renew, complete and release act only on the
 * reservation holding their caller's token, so a process whose reservation lapsed and was taken over
 * by a retry cannot touch the newer one. Rows written before this migration have none: an in-progress
 * one simply expires (within THREAD_LEASE_MS), a completed one keeps answering.
 */
export const IDEMPOTENCY_RESERVATION_TOKEN_MIGRATION: SqliteMigration = {
  version: 80,
  name: 'ai_idempotency_reservation_token',
  up(db) {
    db.exec('ALTER TABLE ai_idempotency_keys ADD COLUMN reservation TEXT');
  },
};
