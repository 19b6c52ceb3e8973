import { GraphChangeSet } from '../graph/graph-change-set';

/**
 * What an approved action becomes: the mutations for the Nodius sync
 * pipeline (HITL_APPLY=client) or for MutableGraphDataSource.applyChanges (HITL_APPLY=server),
 * plus the sheet they concern.
 */
export interface ActionConversionResult extends GraphChangeSet {
  sheetId: string;
}
