import { Database } from 'arangojs';
import type { Role } from '../../../auth/principal';
import { ensureDocumentCollection } from '../../../database/arango/arango-collection.ensurer';
import { hashedDocumentKey } from '../../../database/arango/arango-hashed.key';
import { ArangoQueryExecutor } from '../../../database/arango/arango-query.executor';
import { runArangoSchemaSetup } from '../../../database/arango/arango-schema.setup';
import type { MemberRoleRepository, SeenRole } from '../member-role.repository';
import { ArangoMemberRoleQueries } from './arango-member-role.queries';

/** The collection of this service's own: one document per person and workspace. */
export const ARANGO_MEMBER_ROLES = 'nodius_ai_member_roles';

/** MemberRoleRepository on ArangoDB (STORE=arango): `_key` hashed from the workspace and the user id. */
export class ArangoMemberRoleRepository implements MemberRoleRepository {
  private readonly queries: ArangoMemberRoleQueries;
  private readonly executor: ArangoQueryExecutor;

  constructor(db: Database) {
    this.queries = new ArangoMemberRoleQueries(db.collection(ARANGO_MEMBER_ROLES));
    this.executor = new ArangoQueryExecutor(db);
  }

  /** Creates the collection when missing (idempotent, safe when several instances start at once). */
  static async open(db: Database): Promise<ArangoMemberRoleRepository> {
    await runArangoSchemaSetup(db, 'member-role collection', async () => {
      await ensureDocumentCollection(db, ARANGO_MEMBER_ROLES);
    });
    return new ArangoMemberRoleRepository(db);
  }

  async record(workspace: string, userId: string, role: Role, seenTime: number): Promise<void> {
    await this.executor.all(
      this.queries.record(keyOf(workspace, userId), workspace, userId, role, seenTime),
      'member_role_record',
    );
  }

  async get(workspace: string, userId: string): Promise<SeenRole | null> {
    return (
      (await this.executor.first<SeenRole>(this.queries.get(keyOf(workspace, userId), workspace), 'member_role_get')) ??
      null
    );
  }
}

function keyOf(workspace: string, userId: string): string {
  return hashedDocumentKey('member', [workspace, userId]);
}
