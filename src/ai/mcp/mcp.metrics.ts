import { Counter, Gauge, Registry } from 'prom-client';
import type { ErrorCode } from '../../errors/error-code';

/** How an MCP tool call ended: `ok`, `error` (an error result of the tool itself: a read's, a refused proposal), or the code of the error that refused it. */
export type McpToolOutcome = 'ok' | 'error' | ErrorCode;

/** The MCP server's tool calls by tool and outcome, and its open sessions (read at each scrape). */
export class McpMetrics {
  private readonly calls: Counter<'tool' | 'outcome'>;

  constructor(registry: Registry, openSessions: () => number) {
    this.calls = new Counter({
      name: 'graph_ai_mcp_tool_calls_total',
      help: 'MCP tools/call requests by tool and outcome (ok, error, or the code that refused them).',
      labelNames: ['tool', 'outcome'],
      registers: [registry],
    });
    new Gauge({
      name: 'graph_ai_mcp_sessions',
      help: 'Open MCP sessions on this instance.',
      registers: [registry],
      collect() {
        this.set(openSessions());
      },
    });
  }

  toolCall(tool: string, outcome: McpToolOutcome): void {
    this.calls.inc({ tool, outcome });
  }
}
