/** Injection token of the AgentRunObserver the agent-run executor reports runs to (optional: none in hand-built services). */
export const AGENT_RUN_OBSERVER = Symbol('AGENT_RUN_OBSERVER');
