import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { ActionPolicyDocument } from '../action-policy.repository';

/** A stored policy document: `_key` is hashed from the workspace, which is also kept as an attribute. */
export interface ArangoActionPolicyDocument extends ActionPolicyDocument {
  _key: string;
  workspace: string;
  updatedTime: number;
}

/**
 * The AQL of the ArangoDB policy repository: values and the collection only as bind variables (the
 * `aql` template), and the workspace in every query besides the key derived from it.
 */
export class ArangoActionPolicyQueries {
  constructor(private readonly policies: DocumentCollection) {}

  policy(key: string, workspace: string): AqlQuery {
    return aql`
      FOR policy IN ${this.policies}
        FILTER policy._key == ${key} AND policy.workspace == ${workspace}
        LIMIT 1
        RETURN { default: policy.default, roles: policy.roles, updatedTime: policy.updatedTime }`;
  }

  replace(document: ArangoActionPolicyDocument): AqlQuery {
    return aql`
      UPSERT { _key: ${document._key}, workspace: ${document.workspace} }
        INSERT ${document}
        REPLACE ${document}
        IN ${this.policies}
      RETURN { default: NEW.default, roles: NEW.roles, updatedTime: NEW.updatedTime }`;
  }
}
