import { BUILT_IN_NODE_TYPE_DESCRIPTIONS, isBuiltInNodeType } from '../../../graph/built-in-node-types';
import { BUILT_IN_NODE_TYPES } from '../../../graph/graph.types';
import { formatHandles, summarizeHandles } from '../../../rag/handle-summary';
import { truncate } from '../../../rag/text-truncation';
import { defineReadTool } from './read-tool';
import { ToolInputError } from './tool-input.error';

interface ReadNodeConfigArguments {
  typeKey: string;
}

export const readNodeConfigTool = defineReadTool<ReadNodeConfigArguments>()({
  name: 'read_node_config',
  description:
    'Definition of a node type: display name, description, category, handles and default code for a custom type; the role of a built-in type.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['typeKey'],
    properties: {
      typeKey: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description:
          'A node type, as in a node\'s "type" (e.g. "api-call", or a built-in: starter, return, html, entryType).',
      },
    },
  },
  async execute({ typeKey }, context) {
    if (isBuiltInNodeType(typeKey)) {
      const description = BUILT_IN_NODE_TYPE_DESCRIPTIONS[typeKey];
      return {
        key: typeKey,
        builtIn: true,
        description: description[context.locale] ?? description.en,
        handles: description.handles,
      };
    }
    const configs = await context.dataSource.getNodeConfigs();
    const config = configs.find((candidate) => candidate._key === typeKey);
    if (!config) {
      throw new ToolInputError(context.texts.unknownNodeType(typeKey), {
        availableTypes: [...BUILT_IN_NODE_TYPES, ...configs.map((candidate) => candidate._key).sort()].slice(0, 100),
      });
    }
    return {
      key: config._key,
      displayName: config.displayName || config._key,
      ...(config.description ? { description: config.description } : {}),
      ...(config.category ? { category: config.category } : {}),
      ...(config.icon ? { icon: config.icon } : {}),
      handles: formatHandles(summarizeHandles(config.node?.handles), { withIds: true }),
      ...(config.node?.size ? { size: config.node.size } : {}),
      ...(typeof config.node?.process === 'string' && config.node.process
        ? { defaultProcess: truncate(config.node.process, context.limits.detailProcessChars) }
        : {}),
    };
  },
});
