import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/principal';
import type { ActiveRunRegistry } from '../runs/active-run.registry';
import { isWriteTool } from '../tools/write-tool-name';
import type { ConsentRequest, ProposalConsent, ProposeChange } from '../use-cases/propose-change.use-case';
import { GRAPH_RESOURCE_TEMPLATES, GraphResourceReader } from './graph-resource.reader';
import { McpToolDispatcher } from './mcp-tool.dispatcher';
import { mcpTools } from './mcp-tool.catalog';

/** The server's name and version as `initialize` answers them. */
const SERVER_INFO = { name: 'graph-ai-assistant', version: '1.0.0' };

/** MCP's code for a resource that does not exist (the specification's, not in the SDK's enum). */
const RESOURCE_NOT_FOUND = -32002;

/** How long the user has to answer a confirmation (ask_first) before it counts as a no. */
const CONSENT_TIMEOUT_MS = 5 * 60_000;

const INSTRUCTIONS =
  'Workflow graphs of your workspace: list them as resources (graph://<graphKey>), find what matters with search_graph, ' +
  'read nodes and edges with the read tools, and propose changes with the propose_* tools. What becomes of a proposal ' +
  "follows the workspace's action policy, as each tool's description says: applied at once, sent to the approval queue " +
  '(result "pending_approval" with its threadId), or confirmed with the user first.';

export interface McpServerDependencies {
  dispatcher: McpToolDispatcher;
  resources: GraphResourceReader;
  proposals: ProposeChange;
  runs: ActiveRunRegistry;
}

/** What a request handler knows of who sent it: the principal the controller verified for this HTTP request. */
interface HandlerExtra {
  authInfo?: { extra?: Record<string, unknown> };
  requestId: string | number;
  sessionId?: string;
  signal: AbortSignal;
}

/**
 * One MCP server per session (the SDK's low-level Server: the tools are the agent's own JSON Schemas, not zod). Every
 * handler acts as the principal of the HTTP request that carried it (verified by the controller, passed as the
 * transport's authInfo), so a role changed since the session began applies at once; tools/list is computed from the
 * caller's action policy at each call.
 */
export function createMcpServer(deps: McpServerDependencies): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
  });

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const authority = await deps.proposals.authorityFor(principalOf(extra));
    return { tools: mcpTools(authority) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const principal = principalOf(extra);
    const name = request.params.name;
    const known = mcpTools(await deps.proposals.authorityFor(principal)).some((tool) => tool.name === name);
    // A propose_* tool the policy does not offer reaches the use case, which refuses it with the policy's reason.
    if (!known && !isWriteTool(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const active = deps.runs.begin(`mcp:${extra.sessionId ?? 'none'}`, extra.requestId, {
      threadId: null,
      tokensStreamed: 0,
    });
    if (!active) throw new McpError(ErrorCode.InvalidRequest, `Request ${String(extra.requestId)} is already running`);
    const signal = AbortSignal.any([extra.signal, active.signal]);
    try {
      return await deps.dispatcher.call(principal, {
        name,
        arguments: request.params.arguments ?? {},
        client: clientName(server),
        consent: consentThrough(server, extra.requestId, signal),
        signal,
      });
    } finally {
      active.end();
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
    resources: await deps.resources.list(principalOf(extra).workspace),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: GRAPH_RESOURCE_TEMPLATES,
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const content = await deps.resources.read(principalOf(extra).workspace, request.params.uri);
    if (!content) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${request.params.uri}`);
    return { contents: [content] };
  });

  return server;
}

function principalOf(extra: HandlerExtra): Principal {
  const principal = extra.authInfo?.extra?.principal as Principal | undefined;
  // The controller passes one with every request: a handler without it is a wiring error, never a caller's.
  if (!principal) throw new McpError(ErrorCode.InternalError, 'No verified principal for this request');
  return principal;
}

function clientName(server: Server): string {
  const client = server.getClientVersion();
  return client ? `${client.name} ${client.version}` : 'an MCP client';
}

/**
 * ask_first through MCP elicitation (a form with one yes/no field), on the stream of the tool call that needs it. Only
 * an accepted form whose answer is yes is a yes; a decline, a cancel, a timeout or a failure to ask are a no.
 */
function consentThrough(server: Server, requestId: string | number, signal: AbortSignal): ProposalConsent {
  return {
    available: server.getClientCapabilities()?.elicitation?.form !== undefined,
    async ask(request: ConsentRequest): Promise<boolean> {
      try {
        const answer = await server.elicitInput(
          {
            mode: 'form',
            message: `Apply this change to the graph (${request.kinds.join(', ')})?\n${request.description}`,
            requestedSchema: {
              type: 'object',
              properties: { apply: { type: 'boolean', title: 'Apply this change', default: false } },
              required: ['apply'],
            },
          },
          { relatedRequestId: requestId, signal, timeout: CONSENT_TIMEOUT_MS },
        );
        return answer.action === 'accept' && answer.content?.apply === true;
      } catch {
        return false;
      }
    },
  };
}
