/** Injection token of the AgentRunObserver ChatService reports runs to (optional: none in hand-built services). */
export const AGENT_RUN_OBSERVER = Symbol('AGENT_RUN_OBSERVER');
