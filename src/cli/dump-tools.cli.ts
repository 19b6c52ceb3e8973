import 'reflect-metadata';
import { AgentToolbox } from '../ai/tools/agent.toolbox';
import { ReadToolExecutor } from '../ai/tools/read/read-tool.executor';
import { ReadToolName } from '../ai/tools/read/read-tool.registry';
import { Role } from '../auth/principal';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE } from '../graph/demo/nba-workflow.demo';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { TokenCounter } from '../rag/token-counter';
import { CliArguments } from './cli-arguments';
import { runAuthorityFor } from './cli-run-authority';
import { CliIo, openCliContext, runCli } from './cli-context';

const USAGE = 'Usage: npm run ai:dump-tools [-- --role viewer|editor|admin]';
const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/** One example call of each read tool on the demo graph. */
const READ_TOOL_EXAMPLES: Readonly<Record<ReadToolName, Record<string, unknown>>> = {
  read_graph_overview: {},
  search_nodes: { query: 'fetch players api', maxResults: 3 },
  explore_neighborhood: { nodeKey: 'fetch-api', maxDepth: 1, direction: 'out' },
  read_node_detail: { nodeKey: 'filter-active' },
  read_node_config: { typeKey: 'api-call' },
  list_available_node_types: {},
  list_node_edges: { nodeKey: 'fetch-api', direction: 'any' },
};

/**
 * `npm run ai:dump-tools`: every tool definition offered to a role in the demo
 * workspace (viewer: the 7 read tools and ask_user; editor and admin: also the propose_* tools its
 * action policy offers), with a token estimate, then one
 * example call of each read tool run against the demo graph with the real executor, and its result
 * as the model receives it. An empty store gets the demo graph first.
 */
export async function dumpTools(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let role: Role;
  try {
    const args = CliArguments.parse(argv, { options: ['role'] });
    role = (args.option('role') ?? 'editor') as Role;
    if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }

  const cli = await openCliContext(env, { seedDemo: true });
  try {
    const counter = cli.app.get(TokenCounter, { strict: false });
    const source = cli.app.get(GraphDataSourceFactory, { strict: false }).forWorkspace(DEMO_WORKSPACE);
    const executor = new ReadToolExecutor(source, DEMO_GRAPH_KEY);
    const toolbox = new AgentToolbox({
      authority: await runAuthorityFor(cli.app, DEMO_WORKSPACE, role),
      readTools: executor,
    });
    const lines = [
      `Tools offered to role ${role}: ${toolbox.definitions.length} — ~${counter.count(JSON.stringify(toolbox.definitions))} tokens as sent`,
      '',
    ];
    for (const definition of toolbox.definitions) {
      lines.push(
        `=== ${definition.function.name} (~${counter.count(JSON.stringify(definition))} tokens) ===`,
        JSON.stringify(definition.function, null, 2),
        '',
      );
    }
    if (!(await source.getGraph(DEMO_GRAPH_KEY))) {
      lines.push(
        `The demo graph "${DEMO_GRAPH_KEY}" is not in workspace "${DEMO_WORKSPACE}": no example calls (npm run seed loads it).`,
        '',
      );
    } else {
      lines.push(`=== Example read tool calls on ${DEMO_WORKSPACE}/${DEMO_GRAPH_KEY} ===`, '');
      for (const [name, example] of Object.entries(READ_TOOL_EXAMPLES)) {
        const call = {
          id: `example-${name}`,
          type: 'function' as const,
          function: { name, arguments: JSON.stringify(example) },
        };
        const route = toolbox.route(call);
        const result =
          route.kind === 'read' ? await toolbox.executeRead(name, call.function.arguments) : JSON.stringify(route);
        lines.push(`--- ${name}(${call.function.arguments}) → ~${counter.count(result)} tokens`, result, '');
      }
    }
    io.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    await cli.close();
  }
}

if (require.main === module) runCli(dumpTools);
