import { aql } from 'arangojs';
import type { AqlQuery } from 'arangojs/aql';
import type { DocumentCollection } from 'arangojs/collections';

/** A stored list: `_key` is hashed from the workspace and graph, which are also kept as attributes. */
export interface ArangoAlwaysSendDocument {
  _key: string;
  workspace: string;
  graphKey: string;
  nodeKeys: string[];
  nodeTypes: string[];
  updatedTime: number;
}

/**
 * The AQL of the ArangoDB always-send repository: values and the collection only as bind variables (the `aql`
 * template), and the workspace and graph in every query besides the key derived from them.
 */
export class ArangoAlwaysSendQueries {
  constructor(private readonly lists: DocumentCollection) {}

  list(key: string, workspace: string, graphKey: string): AqlQuery {
    return aql`
      FOR list IN ${this.lists}
        FILTER list._key == ${key} AND list.workspace == ${workspace} AND list.graphKey == ${graphKey}
        LIMIT 1
        RETURN { nodeKeys: list.nodeKeys, nodeTypes: list.nodeTypes, updatedTime: list.updatedTime }`;
  }

  replace(document: ArangoAlwaysSendDocument): AqlQuery {
    return aql`
      UPSERT { _key: ${document._key}, workspace: ${document.workspace}, graphKey: ${document.graphKey} }
        INSERT ${document}
        REPLACE ${document}
        IN ${this.lists}
      RETURN { nodeKeys: NEW.nodeKeys, nodeTypes: NEW.nodeTypes, updatedTime: NEW.updatedTime }`;
  }
}
