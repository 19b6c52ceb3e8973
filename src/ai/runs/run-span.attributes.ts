import type { AgentResult } from '../agent/agent-result';

/** chat, resume or automation, on a run's invoke_agent span. */
export const RUN_KIND = 'app.run.kind';

/** How the run ended, on its invoke_agent span. */
export function resultAttributes(result: AgentResult): Record<string, string | boolean> {
  return {
    'app.run.outcome': result.type === 'interrupt' ? `interrupt_${result.interrupt.kind}` : 'message',
    ...(result.type === 'message' && result.aborted ? { 'app.aborted': true } : {}),
    ...(result.type === 'message' && result.rolledBack ? { 'app.rolled_back': true } : {}),
  };
}
