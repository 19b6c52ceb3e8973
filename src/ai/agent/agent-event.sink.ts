import type { ThreadEvent } from '../../conversation/thread-event';
import type { ApplyRequest } from '../actions/checked-action';
import { AgentResult } from './agent-result';

/**
 * Where a run's events go. The Socket.IO gateway forwards each as an `ai:*` event; REST collects
 * them into an AgentResult. A run that starts ends with exactly one complete(); failures are thrown
 * by the use cases (AppError) and mapped by each transport.
 */
export interface AgentEventSink {
  /** First event, as soon as the thread is known. */
  thread(threadId: string): void;
  /**
   * The run holds the thread's lease (called by the ThreadRunner after `thread`, never for a run refused
   * as busy or not found): a transport that logs its requests makes this one the thread's latest, the one
   * `ai:rejoin` finds.
   */
  leased?(threadId: string): void;
  /**
   * The message waits for its thread, held by another run (multitaskStrategy other than `reject`): nothing of it is
   * stored yet; `thread` follows when its turn comes.
   */
  queued?(threadId: string): void;
  token(text: string): void;
  /** `rawArguments`: the call's arguments as the model wrote them (JSON text), for a transport that shows them. */
  toolStart(toolCallId: string, toolName: string, rawArguments?: string): void;
  toolResult(toolCallId: string, result: string): void;
  /** A thread event, once the commit that stored it is done. */
  event(event: ThreadEvent): void;
  /** HITL_APPLY=client: an action applied without a human, for the caller's editor to apply (`ai:apply`). */
  apply(action: ApplyRequest): void;
  complete(result: AgentResult): void;
}
