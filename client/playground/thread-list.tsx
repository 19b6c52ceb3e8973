import type { ThreadSummary } from '../src/protocol';

export interface ThreadListProps {
  threads: ThreadSummary[];
  currentThreadId: string | null;
  onContinue: (threadId: string) => void;
  onNew: () => void;
}

/** The caller's conversations on the graph, newest first; a click continues one. */
export function ThreadList({ threads, currentThreadId, onContinue, onNew }: ThreadListProps) {
  return (
    <section className="pg-section pg-threads">
      <div className="pg-row pg-row--between">
        <h2>Conversations</h2>
        <button type="button" onClick={onNew}>
          New
        </button>
      </div>
      {threads.length === 0 && <p className="pg-muted">None yet on this graph.</p>}
      <ul>
        {threads.map((thread) => (
          <li key={thread.threadId}>
            <button
              type="button"
              className={`pg-thread ${thread.threadId === currentThreadId ? 'pg-thread--current' : ''}`}
              onClick={() => onContinue(thread.threadId)}
              title={`Continue ${thread.threadId}`}
            >
              <span className="pg-thread__title">{thread.title || thread.threadId}</span>
              <span className="pg-muted">
                {new Date(thread.lastUpdatedTime).toLocaleString()} · {thread.messageCount} message
                {thread.messageCount === 1 ? '' : 's'}
                {thread.pendingInterrupt ? ' · waiting for you' : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
