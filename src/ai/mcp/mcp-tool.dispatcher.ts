import { performance } from 'node:perf_hooks';
import type { Principal } from '../../auth/principal';
import type { RequestRateLimiter } from '../../auth/request-rate.limiter';
import type { AppConfig } from '../../config/app-config';
import { AppError } from '../../errors/app-error';
import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import { Logger } from '../../observability/logger';
import type { TokenTracker } from '../../providers/token.tracker';
import type { RagContextService } from '../../rag/rag-context.service';
import { describeViolations, JsonSchemaValidator } from '../tools/json-schema.validator';
import { READ_TOOL_REGISTRY } from '../tools/read/read-tool.registry';
import { ReadToolExecutor } from '../tools/read/read-tool.executor';
import { isWriteTool } from '../tools/write-tool-name';
import type { ProposalConsent, ProposalOutcome, ProposeChange } from '../use-cases/propose-change.use-case';
import type { McpMetrics, McpToolOutcome } from './mcp.metrics';
import { GRAPH_KEY_ARGUMENT, SEARCH_GRAPH_SCHEMA, SEARCH_GRAPH_TOOL } from './mcp-tool.catalog';

/** MCP's CallToolResult: the text a client's model reads, and the same as structured data where there is some. */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface McpToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The MCP client's name and version, as it introduced itself. */
  client: string;
  consent: ProposalConsent;
  signal: AbortSignal;
}

export interface McpToolDispatcherDependencies {
  config: AppConfig;
  graphs: GraphDataSourceFactory;
  contexts: RagContextService;
  proposals: ProposeChange;
  tokenTracker: TokenTracker;
  rateLimiter: RequestRateLimiter;
  metrics: McpMetrics;
}

const logger = new Logger('mcp');
const searchGraphArguments = new JsonSchemaValidator(SEARCH_GRAPH_SCHEMA);

/**
 * One MCP `tools/call`, under what a chat request is under: the principal's RATE_LIMIT_PER_MINUTE (the chat's own
 * budget, shared with it), the service's token and cost budgets, the caller's workspace (another workspace's graph is
 * not found), and for a proposal the caller's action policy (ProposeChange). Every call is logged (`mcp_tool_call`)
 * and counted (graph_ai_mcp_tool_calls_total). A refusal or failure is an error result (`isError`, with `code`), which
 * the client's model reads; an unknown tool is a protocol error, thrown.
 */
export class McpToolDispatcher {
  constructor(private readonly deps: McpToolDispatcherDependencies) {}

  async call(principal: Principal, call: McpToolCall): Promise<McpToolResult> {
    const started = performance.now();
    let outcome: McpToolOutcome = 'ok';
    let graphKey: unknown;
    try {
      await this.deps.rateLimiter.consume(principal);
      this.deps.tokenTracker.assertWithinBudget();
      graphKey = call.arguments[GRAPH_KEY_ARGUMENT];
      if (typeof graphKey !== 'string' || graphKey.length === 0)
        throw AppError.badRequest(`${GRAPH_KEY_ARGUMENT} is required: the key of one of your graphs (see resources)`);
      const result = await this.dispatch(principal, graphKey, call);
      if (result.isError) outcome = 'error';
      return result;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcome = error.code;
      return errorResult(error);
    } finally {
      this.deps.metrics.toolCall(call.name, outcome);
      logger.info('mcp_tool_call', {
        tool: call.name,
        userId: principal.userId,
        workspace: principal.workspace,
        graphKey: typeof graphKey === 'string' ? graphKey : undefined,
        client: call.client,
        outcome,
        durationMs: Math.round(performance.now() - started),
      });
    }
  }

  private async dispatch(principal: Principal, graphKey: string, call: McpToolCall): Promise<McpToolResult> {
    const { [GRAPH_KEY_ARGUMENT]: _graphKey, ...rest } = call.arguments;
    if (call.name === SEARCH_GRAPH_TOOL) return this.searchGraph(principal, call.arguments);
    if (READ_TOOL_REGISTRY.has(call.name)) return this.read(principal, graphKey, call.name, rest);
    if (isWriteTool(call.name)) {
      const outcome = await this.deps.proposals.execute(
        principal,
        { graphKey, toolName: call.name, rawArguments: JSON.stringify(rest), client: call.client },
        call.consent,
        call.signal,
      );
      return proposalResult(outcome);
    }
    throw new AppError('internal', `No handler for the tool ${call.name}`);
  }

  private async searchGraph(principal: Principal, args: Record<string, unknown>): Promise<McpToolResult> {
    const violations = searchGraphArguments.validate(args);
    if (violations.length > 0)
      throw AppError.badRequest(`Invalid arguments for ${SEARCH_GRAPH_TOOL}: ${describeViolations(violations)}`);
    const { graphKey, query, maxNodes, maxDepth } = args as {
      graphKey: string;
      query: string;
      maxNodes?: number;
      maxDepth?: number;
    };
    const found = await this.deps.contexts.contextFor(principal.workspace, graphKey, query, { maxNodes, maxDepth });
    return {
      content: [{ type: 'text', text: found.toon }],
      structuredContent: {
        nodeKeys: found.context.relevantNodes.map((node) => node._key),
        tokenEstimate: found.tokenEstimate,
      },
    };
  }

  private async read(
    principal: Principal,
    graphKey: string,
    toolName: string,
    args: Record<string, unknown>,
  ): Promise<McpToolResult> {
    const dataSource = this.deps.graphs.forWorkspace(principal.workspace);
    if (!(await dataSource.getGraph(graphKey))) throw AppError.notFound(`Graph "${graphKey}" not found`);
    const executor = new ReadToolExecutor(dataSource, graphKey, {}, this.deps.config.locale);
    const text = await executor.execute(toolName, JSON.stringify(args));
    return { content: [{ type: 'text', text }], ...(isErrorText(text) ? { isError: true } : {}) };
  }
}

function proposalResult(outcome: ProposalOutcome): McpToolResult {
  const structured = { ...outcome } as Record<string, unknown>;
  const isError = outcome.status === 'refused' || outcome.status === 'failed';
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

function errorResult(error: AppError): McpToolResult {
  const body = {
    code: error.code,
    message: error.message,
    ...(error.retryable ? { retryable: true } : {}),
    ...(isRecord(error.details) && typeof error.details.retryAfterMs === 'number'
      ? { retryAfterMs: error.details.retryAfterMs }
      : {}),
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/** A read tool's error result is a JSON object with `error` (ReadToolExecutor never throws). */
function isErrorText(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && typeof parsed.error === 'string';
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
