import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { AiChatClient } from '../ai-chat.client';
import type { AiRequest, AiRequestError, AiRequestHandlers, AiRequestOutcome } from '../ai-request';
import { AiRestClient } from '../ai-rest.client';
import { composeSegments } from '../compose-segments';
import type {
  AiApplyEvent,
  AiRevertedEvent,
  BlockSegment,
  Interrupt,
  MessageSegment,
  MultitaskStrategy,
  ThreadChangeView,
  ThreadEvent,
  ThreadView,
} from '../protocol';
import { linearTextOf } from '../protocol';
import type { AIChatMessage } from './ai-chat-message';
import { type ChatAction, chatReducer, initialChatState, pendingInterruptOf } from './chat-state';

export interface UseAIChatOptions {
  /** The graph the conversation is about. Changing it starts a new conversation. */
  graphKey: string;
  /** The service's origin (default: the page's, `window.location.origin`). */
  serverUrl?: string;
  /** Socket.IO path (default `/socket.io`). */
  path?: string;
  /** Connect when mounted (default false). sendMessage() connects anyway. */
  autoConnect?: boolean;
  /** JWT sent in the handshake and with every `ai:*` message; the latest value is always used. */
  token?: string | null;
  /** Rendering throttle of streamed text (default 32 ms). */
  coalesceMs?: number;
  /** Use this client instead of creating one (it is then neither connected nor closed by the hook). */
  client?: AiChatClient;
  /**
   * Each `ai:event` as it arrives, e.g. to reload the graph after `ACTIONS_EXECUTED`. Called
   * for every request of the hook, also one whose conversation was replaced meanwhile: the event happened anyway.
   */
  onEvent?: (event: ThreadEvent) => void;
  /**
   * Each `ai:apply` (HITL_APPLY=client): an action the policy let through without a human, for
   * the application to apply. Called even when its conversation was replaced meanwhile: the model was told it was sent.
   */
  onApply?: (event: AiApplyEvent) => void;
  /** The REST client for the thread's change log (default: one on `serverUrl` with `token`). */
  rest?: AiRestClient;
  /**
   * A message sent while an answer streams on the thread (docs/protocol.md §9.7): `enqueue` (answered after it),
   * `interrupt` (it stops, its text kept) or `rollback` (it stops and leaves the conversation). Unset: one request at
   * a time, sendMessage() does nothing while an answer streams.
   */
  multitaskStrategy?: Exclude<MultitaskStrategy, 'reject'>;
}

/** The last undo or restore of the hook: running, done (what it reverted and refused), or failed. */
export type RevertState =
  | { kind: 'undo' | 'restore'; status: 'running' }
  | { kind: 'undo' | 'restore'; status: 'done'; result: AiRevertedEvent }
  | { kind: 'undo' | 'restore'; status: 'failed'; error: AiRequestError };

/** The chat's state and actions, with what a complete chat needs (pending interrupt, retry, loading a thread). */
export interface UseAIChatReturn {
  messages: AIChatMessage[];
  isConnected: boolean;
  /** True while an answer streams. */
  isTyping: boolean;
  /** sendMessage() works while an answer streams (a `multitaskStrategy` is set and the thread is known). */
  canSendWhileTyping: boolean;
  /**
   * Sends a message. Blocks written in the text (`@node`, `@sheet:1`, `/use type`, `/create type`, `/modify node`) and
   * the `attached` ones (a canvas selection) make it a rich message (docs/protocol.md §9.6).
   */
  sendMessage: (text: string, attached?: readonly BlockSegment[]) => void;
  /**
   * Answers the pending interrupt: approve/reject with optional feedback, a question's `answer` (docs/protocol.md
   * §8.2), or with `approvedItems` approve only those items of a batch, the others declined.
   */
  resume: (threadId: string, approved: boolean, feedback?: string, answer?: string, approvedItems?: string[]) => void;
  stopGeneration: () => void;
  connect: () => void;
  disconnect: () => void;
  threadId: string | null;
  /** The proposal or question waiting for the user, if any. */
  pendingInterrupt: Interrupt | null;
  /** Sends the failed request again (the last answer failed with a retryable error). */
  retry: () => void;
  /** The last connection error ("unauthorized" when the token was refused), null once connected. */
  connectionError: string | null;
  /** Shows a stored thread (GET /api/ai/thread/:id) and continues it. */
  loadThread: (thread: ThreadView) => void;
  /** Forgets the conversation; the next message starts a new thread. */
  newThread: () => void;
  /**
   * `ai:undo`: reverts the changes of one of the service's messages (`MessageChanges.messageId`;
   * absent: the latest answer whose changes are in effect). Its ACTIONS_REVERTED event joins the messages (and goes
   * to `onEvent`); a part changed since is kept and listed in the result's `refused`. Not while an answer runs.
   */
  undo: (messageId?: string) => Promise<AiRequestOutcome>;
  /** `ai:restore`: reverts everything the assistant applied after that message, as `undo` does. */
  restore: (messageId: string) => Promise<AiRequestOutcome>;
  /** The last undo or restore, null before the first one of the conversation. */
  revert: RevertState | null;
  /**
   * The thread's change log (GET /api/ai/thread/:threadId/changes), oldest first: loaded with a
   * thread and again after each request; empty without a thread (or when it cannot be loaded).
   */
  changes: ThreadChangeView[];
  /** Loads the change log again (e.g. after an undo made elsewhere). */
  refreshChanges: () => Promise<void>;
}

type Send =
  | { kind: 'chat'; message: string; segments?: MessageSegment[] }
  | {
      kind: 'resume';
      threadId: string;
      approved: boolean;
      feedback?: string;
      answer?: string;
      approvedItems?: string[];
    };

let localIds = 0;
const nextLocalId = () => `m${Date.now().toString(36)}${(localIds++).toString(36)}`;

/**
 * React hook over AiChatClient: messages with streamed text (coalesced ~32 ms),
 * tool badges, usage, interrupts and errors; one request at a time; undo and restore, with the thread's change log.
 */
export function useAIChat(options: UseAIChatOptions): UseAIChatReturn {
  const { graphKey, path, coalesceMs, autoConnect = false, client: injected } = options;
  const serverUrl = options.serverUrl ?? (typeof window !== 'undefined' ? window.location.origin : '');
  const [state, dispatch] = useReducer(chatReducer, initialChatState);
  const [isConnected, setConnected] = useState(false);
  const [isTyping, setTyping] = useState(false);
  const [connectionError, setConnectionError] = useState<string | null>(null);
  const [changes, setChanges] = useState<ThreadChangeView[]>([]);
  const [revert, setRevert] = useState<RevertState | null>(null);

  const clientRef = useRef<AiChatClient | null>(null);
  const unsubscribeRef = useRef<Array<() => void>>([]);
  const activeRef = useRef<{ request: AiRequest; assistantId: string } | null>(null);
  const revertingRef = useRef<AiRequest | null>(null);
  const lastSendRef = useRef<Send | null>(null);
  const tokenRef = useRef(options.token);
  tokenRef.current = options.token;
  const onEventRef = useRef(options.onEvent);
  onEventRef.current = options.onEvent;
  const onApplyRef = useRef(options.onApply);
  onApplyRef.current = options.onApply;
  const strategyRef = useRef(options.multitaskStrategy);
  strategyRef.current = options.multitaskStrategy;
  const stateRef = useRef(state);
  stateRef.current = state;
  const graphRef = useRef(graphKey);
  /** Bumped when the conversation is replaced: events of a request of the previous one are dropped. */
  const conversationRef = useRef(0);
  const injectedRest = options.rest;
  const rest = useMemo(
    () => injectedRest ?? new AiRestClient({ url: serverUrl, token: () => tokenRef.current ?? undefined }),
    [injectedRest, serverUrl],
  );

  /** Bumped by each load of the change log: only the latest load's answer is kept. */
  const changesLoadRef = useRef(0);
  /** The change log of `threadId`; dropped when a newer load started or the conversation was replaced meanwhile. */
  const loadChanges = useCallback(
    async (threadId: string | null) => {
      if (!threadId) return;
      const conversation = conversationRef.current;
      const load = ++changesLoadRef.current;
      try {
        const loaded = await rest.listChanges(threadId);
        if (conversationRef.current === conversation && changesLoadRef.current === load) setChanges(loaded);
      } catch {
        // The chat goes on without undo: the log is loaded again after the next request.
      }
    },
    [rest],
  );

  const ensureClient = useCallback((): AiChatClient => {
    if (clientRef.current) return clientRef.current;
    const client =
      injected ??
      new AiChatClient({
        url: serverUrl,
        path,
        coalesceMs,
        autoConnect: false,
        token: () => tokenRef.current ?? undefined,
      });
    unsubscribeRef.current = [
      client.on('connect', () => {
        setConnected(true);
        setConnectionError(null);
      }),
      client.on('disconnect', () => setConnected(false)),
      client.on('connect_error', (error) => {
        setConnected(false);
        setConnectionError(error.message);
      }),
    ];
    setConnected(client.connected);
    clientRef.current = client;
    return client;
  }, [injected, serverUrl, path, coalesceMs]);

  const connect = useCallback(() => {
    const client = ensureClient();
    if (!injected) client.connect();
  }, [ensureClient, injected]);

  const disconnect = useCallback(() => {
    for (const unsubscribe of unsubscribeRef.current.splice(0)) unsubscribe();
    if (clientRef.current && !injected) clientRef.current.close();
    clientRef.current = null;
    setConnected(false);
  }, [injected]);

  useEffect(() => {
    if (autoConnect || injected) connect();
    return () => disconnect();
  }, [autoConnect, injected, connect, disconnect]);

  /** Stops the running answer, if any, and ignores what it still sends: the conversation is replaced. */
  function abandonActive(): void {
    conversationRef.current += 1;
    activeRef.current?.request.stop();
    activeRef.current = null;
    revertingRef.current = null;
    lastSendRef.current = null;
    setTyping(false);
    setChanges([]);
    setRevert(null);
  }

  // Another graph is another conversation.
  useEffect(() => {
    if (graphRef.current === graphKey) return;
    graphRef.current = graphKey;
    abandonActive();
    dispatch({ type: 'reset' });
  }, [graphKey]);

  const start = useCallback(
    (send: Send, retryOf?: string) => {
      const client = ensureClient();
      if (!injected && !client.connected) client.connect();
      const assistantId = retryOf ?? nextLocalId();
      dispatch(
        retryOf
          ? { type: 'retry_started', assistantId }
          : { type: 'request_started', assistantId, createdTime: Date.now() },
      );
      lastSendRef.current = send;
      setRevert(null);
      const conversation = conversationRef.current;
      const deliver = (action: ChatAction) => {
        if (conversationRef.current === conversation) dispatch(action);
      };
      const handlers: AiRequestHandlers = {
        onThread: (event) => deliver({ type: 'thread', threadId: event.threadId }),
        onText: (delta) => deliver({ type: 'text', assistantId, delta }),
        onToolStart: (event) =>
          deliver({ type: 'tool_start', assistantId, toolCallId: event.toolCallId, toolName: event.toolName }),
        onToolResult: (event) =>
          deliver({ type: 'tool_result', assistantId, toolCallId: event.toolCallId, result: event.result }),
        onEvent: (event) => {
          deliver({ type: 'event', assistantId, id: nextLocalId(), event: event.event, createdTime: Date.now() });
          onEventRef.current?.(event.event);
        },
        onApply: (event) => onApplyRef.current?.(event),
        onComplete: (event) => deliver({ type: 'complete', assistantId, event }),
        onError: (error) => deliver({ type: 'error', assistantId, error }),
      };
      let request: AiRequest;
      if (send.kind === 'chat') {
        const threadId = stateRef.current.threadId;
        const strategy = strategyRef.current;
        request = client.chat(
          {
            graphKey: graphRef.current,
            ...(send.segments ? { segments: send.segments } : { message: send.message }),
            ...(threadId ? { threadId } : {}),
            ...(threadId && strategy ? { multitaskStrategy: strategy } : {}),
          },
          handlers,
        );
      } else {
        const { threadId, approved, feedback, answer, approvedItems } = send;
        request = client.resume(
          {
            threadId,
            approved,
            ...(feedback ? { feedback } : {}),
            ...(answer !== undefined ? { answer } : {}),
            ...(approvedItems ? { approvedItems } : {}),
          },
          handlers,
        );
      }
      activeRef.current = { request, assistantId };
      setTyping(true);
      void request.done.then(() => {
        if (activeRef.current?.request !== request) return;
        activeRef.current = null;
        setTyping(false);
        void loadChanges(request.threadId);
      });
    },
    [ensureClient, injected, loadChanges],
  );

  const sendMessage = useCallback(
    (text: string, attached: readonly BlockSegment[] = []) => {
      const message = text.trim();
      // While an answer streams, only with a strategy, on a known thread (the first message creates it).
      if ((!message && attached.length === 0) || revertingRef.current) return;
      if (activeRef.current && !(strategyRef.current && stateRef.current.threadId)) return;
      const segments = composeSegments(message, attached) ?? undefined;
      dispatch({
        type: 'user_message',
        id: nextLocalId(),
        text: segments ? linearTextOf(segments) : message,
        createdTime: Date.now(),
        ...(segments ? { segments } : {}),
      });
      start({ kind: 'chat', message, ...(segments ? { segments } : {}) });
    },
    [start],
  );

  const resume = useCallback(
    (threadId: string, approved: boolean, feedback?: string, answer?: string, approvedItems?: string[]) => {
      if (activeRef.current || revertingRef.current) return;
      dispatch({ type: 'interrupt_answered' });
      start({ kind: 'resume', threadId, approved, feedback, answer, approvedItems });
    },
    [start],
  );

  const runRevert = useCallback(
    (kind: 'undo' | 'restore', messageId: string | undefined): Promise<AiRequestOutcome> => {
      const threadId = stateRef.current.threadId;
      const refused = (error: string): Promise<AiRequestOutcome> =>
        Promise.resolve({ type: 'error', error: { code: 'thread_busy', error, retryable: true, fromServer: false } });
      if (!threadId) return refused(`Nothing to ${kind}: the conversation has no thread yet.`);
      if (activeRef.current || revertingRef.current) return refused(`Wait for the assistant to finish, then ${kind}.`);
      const client = ensureClient();
      if (!injected && !client.connected) client.connect();
      const conversation = conversationRef.current;
      const current = () => conversationRef.current === conversation;
      const handlers: AiRequestHandlers = {
        onEvent: (event) => {
          if (current())
            dispatch({
              type: 'event',
              assistantId: '',
              id: nextLocalId(),
              event: event.event,
              createdTime: Date.now(),
            });
          onEventRef.current?.(event.event);
        },
        onApply: (event) => onApplyRef.current?.(event),
      };
      const request =
        kind === 'undo'
          ? client.undo({ threadId, ...(messageId !== undefined ? { messageId } : {}) }, handlers)
          : client.restore({ threadId, messageId: messageId! }, handlers);
      revertingRef.current = request;
      setRevert({ kind, status: 'running' });
      return request.done.then((outcome) => {
        if (revertingRef.current === request) revertingRef.current = null;
        if (!current()) return outcome;
        setRevert(
          outcome.type === 'reverted'
            ? { kind, status: 'done', result: outcome.event }
            : outcome.type === 'error'
              ? { kind, status: 'failed', error: outcome.error }
              : null,
        );
        void loadChanges(threadId);
        return outcome;
      });
    },
    [ensureClient, injected, loadChanges],
  );

  const undo = useCallback((messageId?: string) => runRevert('undo', messageId), [runRevert]);
  const restore = useCallback((messageId: string) => runRevert('restore', messageId), [runRevert]);
  const refreshChanges = useCallback(() => loadChanges(stateRef.current.threadId), [loadChanges]);

  const retry = useCallback(() => {
    const failed = [...stateRef.current.messages].reverse().find((message) => message.role === 'assistant');
    const send = lastSendRef.current;
    if (activeRef.current || !failed?.error || !failed.retryable || !send) return;
    start(send, failed.id);
  }, [start]);

  const stopGeneration = useCallback(() => activeRef.current?.request.stop(), []);

  const loadThread = useCallback(
    (thread: ThreadView) => {
      abandonActive();
      dispatch({ type: 'loaded', thread });
      void loadChanges(thread.threadId);
    },
    [loadChanges],
  );

  const newThread = useCallback(() => {
    abandonActive();
    dispatch({ type: 'reset' });
  }, []);

  const pendingInterrupt = useMemo(() => pendingInterruptOf(state.messages, isTyping), [state.messages, isTyping]);

  return {
    messages: state.messages,
    isConnected,
    isTyping,
    canSendWhileTyping: options.multitaskStrategy !== undefined && state.threadId !== null,
    sendMessage,
    resume,
    stopGeneration,
    connect,
    disconnect,
    threadId: state.threadId,
    pendingInterrupt,
    retry,
    connectionError,
    loadThread,
    newThread,
    undo,
    restore,
    revert,
    changes,
    refreshChanges,
  };
}
