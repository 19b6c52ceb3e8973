import { parseArgs } from 'node:util';
import { AiChatClient } from '../ai-chat.client';
import { AiApiError, AiRestClient } from '../ai-rest.client';
import { TerminalChat } from './terminal-chat';

const USAGE = `Usage: npm run ai:chat -- --graph KEY [--url URL] [--token JWT] [--thread ID] [--no-color]
  --graph   the graph to talk about (default nba-workflow)
  --url     the service (default $GRAPH_AI_URL or http://localhost:3000)
  --token   a JWT when the service requires one (default $GRAPH_AI_TOKEN)
  --thread  continue this conversation`;

/** The terminal chat over the typed client: checks the graph, connects, then reads questions. */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      graph: { type: 'string', default: 'nba-workflow' },
      url: { type: 'string', default: process.env.GRAPH_AI_URL ?? 'http://localhost:3000' },
      token: { type: 'string', default: process.env.GRAPH_AI_TOKEN },
      thread: { type: 'string' },
      'no-color': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const graphKey = values.graph;
  const url = values.url;
  const token = values.token || undefined;

  const rest = new AiRestClient({ url, token });
  let sheets: Record<string, string>;
  try {
    const graph = await rest.getGraph(graphKey);
    sheets = graph.graph.sheetsList;
    process.stdout.write(`${graph.graph.name}: ${graph.nodes.length} nodes, ${graph.edges.length} edges (${url})\n`);
  } catch (error) {
    const reason =
      error instanceof AiApiError && error.code === 'network'
        ? `cannot reach ${url}; is the service running (npm start)?`
        : error instanceof Error
          ? error.message
          : String(error);
    process.stderr.write(`ai:chat: ${reason}\n`);
    return 1;
  }

  const client = new AiChatClient({ url, token, coalesceMs: 0, autoConnect: false });
  const refused = await new Promise<string | null>((resolve) => {
    client.on('connect', () => resolve(null));
    client.on('connect_error', (error) => resolve(error.message));
    client.connect();
  });
  if (refused !== null) {
    process.stderr.write(`ai:chat: the socket connection was refused (${refused})\n`);
    client.close();
    return 1;
  }

  const chat = new TerminalChat({
    client,
    graphKey,
    input: process.stdin,
    output: process.stdout,
    color: process.stdout.isTTY === true && !process.env.NO_COLOR && !values['no-color'],
    threadId: values.thread,
    sheets,
  });
  // Ctrl+C stops the answer being written; at the prompt it leaves.
  process.on('SIGINT', () => {
    if (!chat.interrupt()) {
      client.close();
      process.exit(130);
    }
  });
  await chat.run();
  client.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`ai:chat: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
