import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { OperationRecord } from '../operation';

/** A stored operation: `_key` hashed from the workspace and the operation id, which are kept as attributes. */
export interface ArangoOperationDocument extends Omit<OperationRecord, 'revertedBy'> {
  _key: string;
  revertedBy?: string | null;
}

/** The fields of a stored operation that are not the record's own. */
const STORAGE_FIELDS = ['_key', '_id', '_rev'];

/**
 * The AQL of the ArangoDB change log: values and collections only as bind variables (the `aql` template), the
 * workspace in every query besides the key derived from it.
 */
export class ArangoOperationQueries {
  constructor(
    private readonly operations: DocumentCollection,
    private readonly graphs: DocumentCollection,
  ) {}

  operation(key: string, workspace: string): AqlQuery {
    return aql`
      FOR operation IN ${this.operations}
        FILTER operation._key == ${key} AND operation.workspace == ${workspace}
        LIMIT 1
        RETURN UNSET(operation, ${STORAGE_FIELDS})`;
  }

  insert(document: ArangoOperationDocument): AqlQuery {
    return aql`INSERT ${document} INTO ${this.operations}`;
  }

  /** Marks the operations a revert reverted (those not reverted already). */
  markReverted(workspace: string, keys: string[], revertedBy: string): AqlQuery {
    return aql`
      FOR operation IN ${this.operations}
        FILTER operation._key IN ${keys} AND operation.workspace == ${workspace} AND operation.revertedBy == null
        UPDATE operation WITH { revertedBy: ${revertedBy} } IN ${this.operations}`;
  }

  byThread(workspace: string, threadId: string): AqlQuery {
    return aql`
      FOR operation IN ${this.operations}
        FILTER operation.workspace == ${workspace} AND operation.threadId == ${threadId}
        SORT operation.appliedTime, operation._key
        RETURN UNSET(operation, ${STORAGE_FIELDS})`;
  }

  prune(before: number): AqlQuery {
    return aql`
      FOR operation IN ${this.operations}
        FILTER operation.appliedTime < ${before}
        REMOVE operation IN ${this.operations}
        COLLECT WITH COUNT INTO removed
        RETURN removed`;
  }

  /** The graph document's revision (`_rev`): ArangoDB keeps no graph-wide counter of node and edge writes. */
  graphRevision(workspace: string, graphKey: string): AqlQuery {
    return aql`
      FOR graph IN ${this.graphs}
        FILTER graph._key == ${graphKey} AND graph.workspace == ${workspace}
        LIMIT 1
        RETURN graph._rev`;
  }
}
