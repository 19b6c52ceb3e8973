import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { ProviderConfigChanges, StoredProviderConfig } from '../provider-config';

/**
 * A configuration in `nodius_ai_provider_configs` (`_key` = config id). `activeWorkspace` is the workspace
 * while the configuration is active and absent otherwise: a unique sparse index on it keeps one active
 * configuration per workspace, as SQLite's partial unique index does.
 */
export type ArangoProviderConfigDocument = Omit<StoredProviderConfig, 'configId'> & {
  _key: string;
  activeWorkspace?: string;
};

/**
 * Every AQL query of the ArangoDB provider-config repository, built with the `aql` template only (values
 * and the collection are bind variables). Every query of the API filters on the workspace; listSealed
 * (operators: start-up check, key rotation) reads every workspace on purpose.
 */
export class ArangoProviderConfigQueries {
  constructor(private readonly configs: DocumentCollection) {}

  list(workspace: string): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.workspace == ${workspace}
        SORT c.createdTime, c._key
        RETURN c`;
  }

  get(workspace: string, configId: string): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.workspace == ${workspace} AND c._key == ${configId}
        LIMIT 1
        RETURN c`;
  }

  getActive(workspace: string): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.activeWorkspace == ${workspace} AND c.workspace == ${workspace}
        LIMIT 1
        RETURN c`;
  }

  count(workspace: string): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.workspace == ${workspace}
        COLLECT WITH COUNT INTO count
        RETURN count`;
  }

  insert(document: ArangoProviderConfigDocument): AqlQuery {
    return aql`INSERT ${document} INTO ${this.configs}`;
  }

  /** Sets the given fields (null removes one: keepNull false), bumps updatedTime; `[NEW]` or `[]`. */
  update(workspace: string, configId: string, changes: ProviderConfigChanges, now: number): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.workspace == ${workspace} AND c._key == ${configId}
        LIMIT 1
        UPDATE c WITH MERGE(${changes}, { updatedTime: MAX([${now}, c.updatedTime + 1]) }) IN ${this.configs}
        OPTIONS { keepNull: false, mergeObjects: false }
        RETURN NEW`;
  }

  remove(workspace: string, configId: string): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.workspace == ${workspace} AND c._key == ${configId}
        LIMIT 1
        REMOVE c IN ${this.configs}
        RETURN 1`;
  }

  /**
   * One query, so one transaction: when the configuration exists, the active one (if another) is
   * switched off first (sorted first, so the unique index never holds two), then this one on.
   * Returns the documents written; none when the configuration does not exist.
   */
  activate(workspace: string, configId: string, now: number): AqlQuery {
    return aql`
      LET target = FIRST(FOR t IN ${this.configs} FILTER t.workspace == ${workspace} AND t._key == ${configId} LIMIT 1 RETURN t._key)
      FOR c IN ${this.configs}
        FILTER target != null AND c.workspace == ${workspace} AND (c.activeWorkspace == ${workspace} OR c._key == target)
        SORT c._key == target
        UPDATE c WITH {
          active: c._key == target,
          activeWorkspace: c._key == target ? ${workspace} : null,
          updatedTime: MAX([${now}, c.updatedTime + 1])
        } IN ${this.configs}
        OPTIONS { keepNull: false }
        RETURN NEW`;
  }

  deactivate(workspace: string, now: number): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.activeWorkspace == ${workspace} AND c.workspace == ${workspace}
        UPDATE c WITH { active: false, activeWorkspace: null, updatedTime: MAX([${now}, c.updatedTime + 1]) } IN ${this.configs}
        OPTIONS { keepNull: false }
        RETURN 1`;
  }

  listSealed(): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.apiKeySecret != null
        SORT c.workspace, c._key
        RETURN { workspace: c.workspace, configId: c._key, name: c.name, apiKeySecret: c.apiKeySecret }`;
  }

  replaceSealed(workspace: string, configId: string, expected: string, resealed: string): AqlQuery {
    return aql`
      FOR c IN ${this.configs}
        FILTER c.workspace == ${workspace} AND c._key == ${configId} AND c.apiKeySecret == ${expected}
        LIMIT 1
        UPDATE c WITH { apiKeySecret: ${resealed} } IN ${this.configs}
        RETURN 1`;
  }
}
