import { Database } from 'arangojs';
import { ensureDocumentCollection } from '../../database/arango/arango-collection.ensurer';
import { ArangoQueryExecutor } from '../../database/arango/arango-query.executor';
import { Logger } from '../../observability/logger';
import { hashedDocumentKey } from '../../database/arango/arango-hashed.key';
import { ActionPolicy, toActionPolicy } from '../action-policy';
import { ActionPolicyDocument, ActionPolicyRepository } from '../action-policy.repository';
import { ArangoActionPolicyQueries } from './arango-action-policy.queries';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';

const logger = new Logger('arango-policy');

/** The collection of this service's own (not a Nodius one): one document per workspace. */
export const ARANGO_ACTION_POLICIES = 'nodius_ai_action_policies';

/**
 * ActionPolicyRepository on ArangoDB (STORE=arango): one document per workspace in
 * `nodius_ai_action_policies`, `_key` hashed from the workspace (any character may be in a workspace
 * name), replaced whole by put. Failures become the service's errors (an unreachable server:
 * `store_unavailable`, 503). The connection belongs to DatabaseModule.
 */
export class ArangoActionPolicyRepository implements ActionPolicyRepository {
  private readonly queries: ArangoActionPolicyQueries;
  private readonly executor: ArangoQueryExecutor;

  constructor(db: Database) {
    this.queries = new ArangoActionPolicyQueries(db.collection(ARANGO_ACTION_POLICIES));
    this.executor = new ArangoQueryExecutor(db);
  }

  /** Creates the collection when missing (idempotent, safe when several instances start at once), then returns the repository. */
  static async open(db: Database): Promise<ArangoActionPolicyRepository> {
    await runArangoSchemaSetup(db, 'policy collection', async () => {
      if (await ensureDocumentCollection(db, ARANGO_ACTION_POLICIES))
        logger.info('arango_collection_created', { collection: ARANGO_ACTION_POLICIES });
    });
    return new ArangoActionPolicyRepository(db);
  }

  async get(workspace: string): Promise<ActionPolicy | null> {
    const stored = await this.executor.first<Record<string, unknown>>(
      this.queries.policy(keyOf(workspace), workspace),
      'policy_get',
    );
    return stored ? toActionPolicy(stored) : null;
  }

  async put(workspace: string, policy: ActionPolicyDocument, now: number): Promise<ActionPolicy> {
    const document = {
      _key: keyOf(workspace),
      workspace,
      default: policy.default,
      roles: policy.roles,
      updatedTime: now,
    };
    const stored = await this.executor.first<Record<string, unknown>>(this.queries.replace(document), 'policy_put');
    return toActionPolicy(stored ?? document);
  }
}

function keyOf(workspace: string): string {
  return hashedDocumentKey('policy', [workspace]);
}
