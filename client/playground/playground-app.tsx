import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { AiApiError, AiRestClient } from '../src/ai-rest.client';
import { pointerToNodes } from '../src/compose-segments';
import type {
  BlockSegment,
  GraphDocument,
  PlaygroundSettings,
  RagContextResponse,
  ThreadEvent,
  ThreadSummary,
  UsageReport,
} from '../src/protocol';
import { AIChatPanel } from '../src/react/ai-chat-panel';
import { useAIChat } from '../src/react/use-ai-chat';
import { useProposalStaleness } from '../src/react/use-proposal-staleness';
import { formatUsage } from '../src/usage-format';
import { recentGraphs, storedToken } from './browser-storage';
import { ContextDrawer } from './context-drawer';
import { GraphPicker } from './graph-picker';
import { GraphView } from './graph/graph-view';
import { ThreadList } from './thread-list';
import { TokenField } from './token-field';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** Every thread event but DATA_ADDED (what a question loaded) reports a change to the graph. */
const changesGraph = (event: ThreadEvent) => event.type !== 'DATA_ADDED';
/**
 * While a proposal waits, the graph is loaded again this often (and when the page gets the focus back), so that an
 * edit made elsewhere (the change feed, another user) shows, and a proposal it makes stale is shown stale.
 */
const RECHECK_PENDING_PROPOSAL_MS = 3000;

/**
 * The playground: pick a graph and see it, chat with the assistant through the same hook and
 * components an application embeds, see a pending proposal on the graph (the items of a batch left out, what changed
 * since it was made), undo or restore what the assistant applied, continue earlier threads, see each answer's usage
 * and cost, and open "what the AI sees" for the last question.
 */
export function PlaygroundApp() {
  const [settings, setSettings] = useState<PlaygroundSettings | null>(null);
  const [token, setToken] = useState(storedToken.read);
  const tokenRef = useRef(token);
  tokenRef.current = token;
  const [graphKey, setGraphKey] = useState(
    () => new URLSearchParams(window.location.search).get('graph') ?? recentGraphs.read()[0] ?? 'nba-workflow',
  );
  const [recent, setRecent] = useState(recentGraphs.read);
  const [graph, setGraph] = useState<GraphDocument | null>(null);
  const [graphError, setGraphError] = useState<string | null>(null);
  const [threads, setThreads] = useState<ThreadSummary[]>([]);
  const [threadUsage, setThreadUsage] = useState<UsageReport | null>(null);
  const [drawerOpen, setDrawerOpen] = useState(false);
  /** Blocks attached from the canvas to the next message (the composer shows them as chips). */
  const [attached, setAttached] = useState<BlockSegment[]>([]);
  const [context, setContext] = useState<{
    question: string;
    value: RagContextResponse | null;
    error: string | null;
  } | null>(null);

  const rest = useMemo(() => new AiRestClient({ url: window.location.origin, token: () => tokenRef.current }), []);
  const ready = settings !== null && (settings.auth === 'none' || token !== '');

  // The graph, loaded again after each change; an answer that comes after a newer request is dropped, and one equal
  // to the graph shown is not drawn again (the rechecks of a waiting proposal mostly find nothing new).
  const graphRequest = useRef(0);
  const shownGraph = useRef<string | null>(null);
  const loadGraph = useCallback(() => {
    const request = ++graphRequest.current;
    rest.getGraph(graphKey).then(
      (document) => {
        if (request !== graphRequest.current) return;
        const text = JSON.stringify(document);
        if (text !== shownGraph.current) {
          shownGraph.current = text;
          setGraph(document);
        }
        setGraphError(null);
        setRecent(recentGraphs.remember(graphKey));
      },
      (error: unknown) => {
        if (request !== graphRequest.current) return;
        setGraphError(
          error instanceof AiApiError && error.statusCode === 404
            ? `No graph "${graphKey}" in your workspace.`
            : messageOf(error),
        );
      },
    );
  }, [rest, graphKey]);

  const chat = useAIChat({
    graphKey,
    token,
    autoConnect: ready,
    onEvent: (event) => {
      if (changesGraph(event)) loadGraph();
    },
    // HITL_APPLY=client: the editor applies it; the service has it once the editor's sync reached it.
    onApply: loadGraph,
  });

  const proposal = chat.pendingInterrupt?.kind === 'approval' ? chat.pendingInterrupt : null;
  const staleness = useProposalStaleness(proposal, graph);
  const [checkedItems, setCheckedItems] = useState<{ toolCallId: string; approvedItems: string[] } | null>(null);
  const approvedItems =
    proposal && checkedItems?.toolCallId === proposal.toolCallId ? checkedItems.approvedItems : null;
  const onItemsChange = useCallback(
    (toolCallId: string, items: string[]) => setCheckedItems({ toolCallId, approvedItems: items }),
    [],
  );

  useEffect(() => {
    if (!proposal) return;
    const timer = setInterval(loadGraph, RECHECK_PENDING_PROPOSAL_MS);
    window.addEventListener('focus', loadGraph);
    return () => {
      clearInterval(timer);
      window.removeEventListener('focus', loadGraph);
    };
  }, [proposal, loadGraph]);

  useEffect(() => {
    fetch('./config.json')
      .then((response) => response.json() as Promise<PlaygroundSettings>)
      .then(setSettings, () => setSettings({ auth: 'none' }));
  }, []);

  const refreshThreads = useCallback(() => {
    rest.listThreads(graphKey).then(setThreads, () => setThreads([]));
  }, [rest, graphKey]);

  // The graph: loaded when picked (and again with a new token), remembered, put in the address.
  useEffect(() => {
    if (!ready) return;
    setGraph(null);
    shownGraph.current = null;
    setGraphError(null);
    loadGraph();
    refreshThreads();
    const url = new URL(window.location.href);
    url.searchParams.set('graph', graphKey);
    window.history.replaceState(null, '', url);
  }, [ready, graphKey, loadGraph, refreshThreads]);

  // After each answer: the thread list (titles, counts) and the conversation's total usage.
  const wasTyping = useRef(false);
  useEffect(() => {
    if (wasTyping.current && !chat.isTyping) {
      refreshThreads();
      if (chat.threadId)
        rest.getThread(chat.threadId).then(
          (thread) => setThreadUsage(thread.usage),
          () => undefined,
        );
    }
    wasTyping.current = chat.isTyping;
  }, [chat.isTyping, chat.threadId, refreshThreads, rest]);

  /** What the last question's blocks and mentions loaded (its DATA_ADDED event), for "What the AI sees". */
  const lastDataAdded = useMemo(
    () =>
      [...chat.messages].reverse().find((message) => message.role === 'event' && message.event?.type === 'DATA_ADDED')
        ?.event ?? null,
    [chat.messages],
  );
  const lastQuestion = useMemo(
    () => [...chat.messages].reverse().find((message) => message.role === 'user')?.content ?? null,
    [chat.messages],
  );
  useEffect(() => {
    if (!drawerOpen || !lastQuestion || context?.question === lastQuestion) return;
    setContext({ question: lastQuestion, value: null, error: null });
    rest.ragContext(graphKey, lastQuestion).then(
      (value) => setContext({ question: lastQuestion, value, error: null }),
      (error: unknown) => setContext({ question: lastQuestion, value: null, error: messageOf(error) }),
    );
  }, [drawerOpen, lastQuestion, context?.question, rest, graphKey]);

  const continueThread = (threadId: string) => {
    rest.getThread(threadId).then(
      (thread) => {
        chat.loadThread(thread);
        setThreadUsage(thread.usage);
      },
      (error: unknown) => setGraphError(messageOf(error)),
    );
  };

  const applyToken = (value: string) => {
    storedToken.write(value);
    setToken(value);
    // The handshake carries the token: connect again with the new one.
    chat.disconnect();
    if (value) chat.connect();
  };

  return (
    <div className="pg-layout">
      <aside className="pg-sidebar">
        <h1>Graph AI assistant</h1>
        <p className="pg-muted">Playground</p>
        {settings?.auth === 'jwt' && (
          <TokenField token={token} refused={chat.connectionError === 'unauthorized'} onApply={applyToken} />
        )}
        <GraphPicker
          graphKey={graphKey}
          graph={graph}
          error={graphError}
          recent={recent}
          onPick={(key) => {
            setThreadUsage(null);
            setContext(null);
            setGraphKey(key);
          }}
        />
        <ThreadList
          threads={threads}
          currentThreadId={chat.threadId}
          onContinue={continueThread}
          onNew={() => {
            chat.newThread();
            setThreadUsage(null);
          }}
        />
        <p className="pg-links">
          <a href="../docs">API documentation (Swagger)</a>
        </p>
      </aside>

      <GraphView
        key={graphKey}
        graph={graph}
        error={graphError}
        proposal={proposal}
        approvedItems={approvedItems}
        staleness={staleness}
        onReload={loadGraph}
        onAttachSelection={(nodeKeys) => setAttached((current) => [...current, pointerToNodes(nodeKeys)])}
      />

      <main className="pg-main">
        <div className="pg-toolbar">
          <span className="pg-muted">
            {chat.threadId ? `Thread ${chat.threadId}` : 'New conversation'}
            {threadUsage ? ` · conversation so far: ${formatUsage(threadUsage)}` : ''}
          </span>
          <button type="button" onClick={() => setDrawerOpen((open) => !open)} aria-pressed={drawerOpen}>
            What the AI sees
          </button>
        </div>
        <AIChatPanel
          title={graph ? `AI assistant · ${graph.graph.name}` : 'AI assistant'}
          messages={chat.messages}
          isTyping={chat.isTyping}
          isConnected={chat.isConnected}
          threadId={chat.threadId}
          onSend={(text, blocks) => {
            chat.sendMessage(text, blocks);
            setAttached([]);
          }}
          attached={attached}
          onRemoveAttached={(index) => setAttached((current) => current.filter((_, at) => at !== index))}
          onStop={chat.stopGeneration}
          onResume={chat.resume}
          onRetry={chat.retry}
          sheets={graph?.graph.sheetsList}
          onItemsChange={onItemsChange}
          staleness={staleness}
          changes={chat.changes}
          onUndo={(messageId) => void chat.undo(messageId)}
          onRestore={(messageId) => void chat.restore(messageId)}
          revert={chat.revert}
        />
      </main>

      {drawerOpen && (
        <ContextDrawer
          question={context?.question ?? lastQuestion}
          dataAdded={lastDataAdded}
          context={context?.value ?? null}
          loading={context !== null && context.value === null && context.error === null}
          error={context?.error ?? null}
          onClose={() => setDrawerOpen(false)}
        />
      )}
    </div>
  );
}
