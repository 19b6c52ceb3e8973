import { BUILT_IN_NODE_TYPE_DESCRIPTIONS } from '../../../graph/built-in-node-types';
import { BUILT_IN_NODE_TYPES } from '../../../graph/graph.types';
import { truncate } from '../../../rag/text-truncation';
import { defineReadTool } from './read-tool';

/** This tool takes no arguments. */
type ListAvailableNodeTypesArguments = Record<never, never>;

export const listAvailableNodeTypesTool = defineReadTool<ListAvailableNodeTypesArguments>()({
  name: 'list_available_node_types',
  description:
    'Every node type usable in this workspace: the 4 built-in types and the custom types with their display names.',
  parameters: { type: 'object', additionalProperties: false, properties: {} },
  async execute(_args, context) {
    const configs = await context.dataSource.getNodeConfigs();
    return {
      builtIn: BUILT_IN_NODE_TYPES.map((type) => ({
        key: type,
        description: BUILT_IN_NODE_TYPE_DESCRIPTIONS[type][context.locale] ?? BUILT_IN_NODE_TYPE_DESCRIPTIONS[type].en,
      })),
      custom: [...configs]
        .sort((a, b) => (a._key < b._key ? -1 : a._key > b._key ? 1 : 0))
        .map((config) => ({
          key: config._key,
          displayName: config.displayName || config._key,
          ...(config.category ? { category: config.category } : {}),
          ...(config.description ? { description: truncate(config.description, context.limits.previewChars) } : {}),
        })),
    };
  },
});
