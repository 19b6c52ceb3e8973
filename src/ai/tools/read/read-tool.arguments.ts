import { EdgeDirection } from '../../../graph/graph-data-source';
import { ArgumentSchema } from '../tool-parameters';

/** Argument schemas shared by several read tools. */

export const NODE_KEY_ARGUMENT: ArgumentSchema<string> = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description:
    'Local key of a node of this graph, exactly as written in the context or a tool result (e.g. "fetch-api").',
};

export const DIRECTION_ARGUMENT: ArgumentSchema<EdgeDirection> = {
  type: 'string',
  enum: ['in', 'out', 'any'],
  description:
    '"in": edges arriving at the node (what feeds it); "out": edges leaving it (what it feeds); "any": both. Default "any".',
};
