import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { AiChatClient } from '../ai-chat.client';
import type { AiRequest, AiRequestHandlers } from '../ai-request';
import type { AiApplyEvent, Interrupt, ThreadEvent, ThreadView } from '../protocol';
import type { AIChatMessage } from './ai-chat-message';
import { type ChatAction, chatReducer, initialChatState, pendingInterruptOf } from './chat-state';

export interface UseAIChatOptions {
  /** The graph the conversation is about. Changing it starts a new conversation. */
  graphKey: string;
  /** The service's origin (default: the page's, `window.location.origin`). Seed 000's `serverInfo`. */
  serverUrl?: string;
  /** Socket.IO path (default `/socket.io`). */
  path?: string;
  /** Connect when mounted (default false, as in seed 000). sendMessage() connects anyway. */
  autoConnect?: boolean;
  /** JWT sent in the handshake and with every `ai:*` message; the latest value is always used. */
  token?: string | null;
  /** Rendering throttle of streamed text (default 32 ms). */
  coalesceMs?: number;
  /** Use this client instead of creating one (it is then neither connected nor closed by the hook). */
  client?: AiChatClient;
  /**
   * Each `ai:event` (docs/protocol.md §8.3) as it arrives, e.g. to reload the graph after `ACTIONS_EXECUTED`. Called
   * for every request of the hook, also one whose conversation was replaced meanwhile: the event happened anyway.
   */
  onEvent?: (event: ThreadEvent) => void;
  /**
   * Each `ai:apply` (HITL_APPLY=client, docs/protocol.md §8.1): an action the policy let through without a human, for
   * the application to apply. Called even when its conversation was replaced meanwhile: the model was told it was sent.
   */
  onApply?: (event: AiApplyEvent) => void;
}

/** Seed 000's interface, plus what a complete chat needs (pending interrupt, retry, loading a thread). */
export interface UseAIChatReturn {
  messages: AIChatMessage[];
  isConnected: boolean;
  /** True while an answer streams. */
  isTyping: boolean;
  sendMessage: (text: string) => void;
  /** Answers the pending interrupt: approve/reject with optional feedback, or a question's `answer` (docs/protocol.md §8.2). */
  resume: (threadId: string, approved: boolean, feedback?: string, answer?: string) => void;
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
}

type Send =
  | { kind: 'chat'; message: string }
  | { kind: 'resume'; threadId: string; approved: boolean; feedback?: string; answer?: string };

let localIds = 0;
const nextLocalId = () => `m${Date.now().toString(36)}${(localIds++).toString(36)}`;

/**
 * React hook over AiChatClient (seed 000 useAIChat): messages with streamed text (coalesced ~32 ms),
 * tool badges, usage, interrupts and errors; one request at a time.
 */
export function useAIChat(options: UseAIChatOptions): UseAIChatReturn {
  const { graphKey, path, coalesceMs, autoConnect = false, client: injected } = options;
  const serverUrl = options.serverUrl ?? (typeof window !== 'undefined' ? window.location.origin : '');
  const [state, dispatch] = useReducer(chatReducer, initialChatState);
  const [isConnected, setConnected] = useState(false);
  const [isTyping, setTyping] = useState(false);
  const [connectionError, setConnectionError] = useState<string | null>(null);

  const clientRef = useRef<AiChatClient | null>(null);
  const unsubscribeRef = useRef<Array<() => void>>([]);
  const activeRef = useRef<{ request: AiRequest; assistantId: string } | null>(null);
  const lastSendRef = useRef<Send | null>(null);
  const tokenRef = useRef(options.token);
  tokenRef.current = options.token;
  const onEventRef = useRef(options.onEvent);
  onEventRef.current = options.onEvent;
  const onApplyRef = useRef(options.onApply);
  onApplyRef.current = options.onApply;
  const stateRef = useRef(state);
  stateRef.current = state;
  const graphRef = useRef(graphKey);
  /** Bumped when the conversation is replaced: events of a request of the previous one are dropped. */
  const conversationRef = useRef(0);

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
    lastSendRef.current = null;
    setTyping(false);
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
        request = client.chat(
          { graphKey: graphRef.current, message: send.message, ...(threadId ? { threadId } : {}) },
          handlers,
        );
      } else {
        const { threadId, approved, feedback, answer } = send;
        request = client.resume(
          { threadId, approved, ...(feedback ? { feedback } : {}), ...(answer !== undefined ? { answer } : {}) },
          handlers,
        );
      }
      activeRef.current = { request, assistantId };
      setTyping(true);
      void request.done.then(() => {
        if (activeRef.current?.request !== request) return;
        activeRef.current = null;
        setTyping(false);
      });
    },
    [ensureClient, injected],
  );

  const sendMessage = useCallback(
    (text: string) => {
      const message = text.trim();
      if (!message || activeRef.current) return;
      dispatch({ type: 'user_message', id: nextLocalId(), text: message, createdTime: Date.now() });
      start({ kind: 'chat', message });
    },
    [start],
  );

  const resume = useCallback(
    (threadId: string, approved: boolean, feedback?: string, answer?: string) => {
      if (activeRef.current) return;
      dispatch({ type: 'interrupt_answered' });
      start({ kind: 'resume', threadId, approved, feedback, answer });
    },
    [start],
  );

  const retry = useCallback(() => {
    const failed = [...stateRef.current.messages].reverse().find((message) => message.role === 'assistant');
    const send = lastSendRef.current;
    if (activeRef.current || !failed?.error || !failed.retryable || !send) return;
    start(send, failed.id);
  }, [start]);

  const stopGeneration = useCallback(() => activeRef.current?.request.stop(), []);

  const loadThread = useCallback((thread: ThreadView) => {
    abandonActive();
    dispatch({ type: 'loaded', thread });
  }, []);

  const newThread = useCallback(() => {
    abandonActive();
    dispatch({ type: 'reset' });
  }, []);

  const pendingInterrupt = useMemo(() => pendingInterruptOf(state.messages, isTyping), [state.messages, isTyping]);

  return {
    messages: state.messages,
    isConnected,
    isTyping,
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
  };
}
