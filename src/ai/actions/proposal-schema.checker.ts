import type { Locale } from '../../config/app-config';
import type { ProposedAction } from '../../conversation/proposed-action';
import type { GraphDataSource } from '../../graph/graph-data-source';
import type { GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { nodeTypeDataSchema } from '../blocks/node-type-schema';
import { describeViolations, JsonSchemaValidator } from '../tools/json-schema.validator';
import { toolResultTexts, ToolResultTexts } from '../tools/tool-result.texts';

type CreateNode = Extract<ProposedAction, { type: 'create_node' }>;

/**
 * Checks the data of the nodes a proposal creates against their type's data schema, before a human sees it: the
 * schema a type's configuration declares (`dataSchema`), always; the one inferred from the graph's nodes of that type
 * only for the types a `create` block of the question named (`inferredFor`), since an inferred schema is what the
 * model was shown for them. A node created without data is not checked (it starts from its type's defaults), nor is a
 * declared schema this service cannot enforce (keywords outside the validator's subset).
 */
export class ProposalSchemaChecker {
  private readonly texts: ToolResultTexts;

  constructor(
    private readonly dataSource: GraphDataSource,
    private readonly graphKey: string,
    private readonly inferredFor: ReadonlySet<string>,
    locale: Locale = 'en',
  ) {
    this.texts = toolResultTexts(locale);
  }

  /** One sentence per created node whose data does not match (empty: nothing to say). */
  async problems(action: ProposedAction): Promise<string[]> {
    const created = createdNodesOf(action).filter((leaf) => leaf.payload.data !== undefined);
    if (created.length === 0) return [];
    const configs = await this.dataSource.getNodeConfigs();
    const declaring = new Map(
      configs.filter((config) => isSchema(config.dataSchema)).map((config) => [config._key, config] as const),
    );
    const types = new Set(created.map((leaf) => leaf.payload.typeKey));
    const inferred = [...types].filter((type) => !declaring.has(type) && this.inferredFor.has(type));
    if (![...types].some((type) => declaring.has(type)) && inferred.length === 0) return [];
    const nodes = inferred.length > 0 ? await this.dataSource.getNodes(this.graphKey) : [];
    const validators = new Map<string, JsonSchemaValidator | null>();
    const problems: string[] = [];
    for (const leaf of created) {
      const type = leaf.payload.typeKey;
      if (!validators.has(type)) validators.set(type, this.validatorFor(type, declaring.get(type), nodes));
      const violations = validators.get(type)?.validate(leaf.payload.data) ?? [];
      if (violations.length > 0)
        problems.push(
          this.texts.dataSchemaMismatch(
            type,
            leaf.payload.nodeKey,
            describeViolations(violations.map((violation) => ({ ...violation, path: dataPath(violation.path) }))),
          ),
        );
    }
    return problems;
  }

  private validatorFor(
    type: string,
    config: NodeTypeConfig | undefined,
    nodes: readonly GraphNode[],
  ): JsonSchemaValidator | null {
    if (!config && !this.inferredFor.has(type)) return null;
    const schema = nodeTypeDataSchema(
      config,
      nodes.filter((node) => node.type === type),
    );
    if (schema.source === 'inferred' && schema.nodes === 0) return null;
    try {
      return new JsonSchemaValidator(schema.schema);
    } catch {
      return null;
    }
  }
}

function createdNodesOf(action: ProposedAction): CreateNode[] {
  if (action.type === 'batch') return action.payload.actions.flatMap(createdNodesOf);
  return action.type === 'create_node' ? [action] : [];
}

/** A violation's path inside the node, so the model knows it is about the `data` argument. */
function dataPath(path: string): string {
  if (!path) return 'data';
  return path.startsWith('[') ? `data${path}` : `data.${path}`;
}

function isSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
