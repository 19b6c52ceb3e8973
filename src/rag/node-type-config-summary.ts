import { NodeTypeConfig } from '../graph/graph.types';
import { NodeTypeConfigSummary } from '../conversation/graph-rag-context';
import { formatHandles, summarizeHandles } from './handle-summary';

/** Condenses a custom node-type config for the model. */
export function summarizeNodeTypeConfig(config: NodeTypeConfig): NodeTypeConfigSummary {
  return {
    _key: config._key,
    displayName: config.displayName || config._key,
    ...(config.description ? { description: config.description } : {}),
    ...(config.category ? { category: config.category } : {}),
    ...(config.icon ? { icon: config.icon } : {}),
    handlesSummary: formatHandles(summarizeHandles(config.node?.handles)),
  };
}

/** "api-call (API Call)" when the type has a display name of its own, else just the type. */
export function formatNodeType(type: string, typeName: string | undefined): string {
  return typeName && typeName !== type ? `${type} (${typeName})` : type;
}
