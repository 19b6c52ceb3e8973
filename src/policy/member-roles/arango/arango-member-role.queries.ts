import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { Role } from '../../../auth/principal';

/** The AQL of the ArangoDB member roles: values and the collection only as bind variables, the workspace in every query. */
export class ArangoMemberRoleQueries {
  constructor(private readonly roles: DocumentCollection) {}

  record(key: string, workspace: string, userId: string, role: Role, seenTime: number): AqlQuery {
    const document = { _key: key, workspace, userId, role, seenTime };
    return aql`
      UPSERT { _key: ${key}, workspace: ${workspace} }
        INSERT ${document}
        UPDATE (OLD.seenTime <= ${seenTime} ? { role: ${role}, seenTime: ${seenTime} } : {})
        IN ${this.roles}`;
  }

  get(key: string, workspace: string): AqlQuery {
    return aql`
      FOR member IN ${this.roles}
        FILTER member._key == ${key} AND member.workspace == ${workspace}
        LIMIT 1
        RETURN { role: member.role, seenTime: member.seenTime }`;
  }
}
