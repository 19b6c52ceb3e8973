// A page built on the AI SDK's own useChat (no code of ours), pointed at POST /api/ai/ui-chat: the Chromium test of
// test/e2e/ui-chat.browser.e2e-spec.ts loads it to prove that an AI SDK application works against the service as is.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.hash.slice(1));
const graphKey = params.get('graph') ?? '';
const token = params.get('token') ?? '';

type ToolLike = { type: string; toolCallId: string; state: string; toolName?: string; approval?: { id: string } };

function Part({ part, onApprove }: { part: UIMessage['parts'][number]; onApprove: (id: string) => void }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
    const tool = part as unknown as ToolLike;
    return (
      <div className="tool" data-state={tool.state} data-tool={tool.toolName}>
        {tool.toolName}: {tool.state}
        {tool.state === 'approval-requested' && tool.approval && (
          <button onClick={() => onApprove(tool.approval!.id)}>Approve</button>
        )}
      </div>
    );
  }
  return null;
}

function App() {
  const [input, setInput] = useState('');
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    transport: new DefaultChatTransport({
      api: '/api/ai/ui-chat',
      headers: { Authorization: `Bearer ${token}` },
      body: { graphKey },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return (
    <main>
      {messages.map((message) => (
        <section key={message.id} className={`message ${message.role}`}>
          {message.parts.map((part, index) => (
            <Part key={index} part={part} onApprove={(id) => void addToolApprovalResponse({ id, approved: true })} />
          ))}
        </section>
      ))}
      <p className="status">{status}</p>
      {error && <p className="error">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit">Send</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
