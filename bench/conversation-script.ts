import type { RecordedRequest, ScriptedTurn } from '../test/support/scripted-llm-server';

/**
 * The scripted conversation of the memory and prompt-cache benches: questions about the demo graph's
 * nodes (so retrieval finds something), a fact stated early and asked about much later, and a model
 * that answers chat requests with a paragraph and summary requests with a structured summary.
 */
export const FACT =
  'Before we go on: the staging API token for the NBA feed is called NBA_STAGING_TOKEN_42, please remember it.';
export const FACT_MARKER = 'NBA_STAGING_TOKEN_42';
export const FACT_QUESTION = 'What was the name of the staging token I gave you at the beginning?';

const NODES = ['fetch-api', 'filter-active', 'sort-stats', 'display-html', 'error-handler', 'entry-form', 'root'];

/** Turn `turn` (1-based): the fact at `factTurn`, the question about it at `askTurn`, else a question about a node. */
export function benchQuestion(turn: number, factTurn = 3, askTurn = 80): string {
  if (turn === factTurn) return FACT;
  if (turn === askTurn) return FACT_QUESTION;
  const node = NODES[turn % NODES.length];
  return `Turn ${turn}: what does ${node} do with the players of season ${1990 + turn}, and what does it send to the next node? Please also say how errors are handled there.`;
}

/** The request that carries a turn's question: its last message, events aside, is the user's (not a tool round). */
export function isQuestionRequest(request: RecordedRequest): boolean {
  const messages: Array<{ role: string }> = request.body?.messages ?? [];
  return !isSummaryRequest(request) && messages.findLast((message) => message.role !== 'system')?.role === 'user';
}

/** Summary calls carry the record_summary tool. */
export function isSummaryRequest(request: RecordedRequest): boolean {
  return JSON.stringify(request.body?.tools ?? []).includes('record_summary');
}

/**
 * Chat requests: as the agent works, the model reads a node with a tool every other question before
 * answering (a second request in the same turn), then answers with a ~900-character paragraph.
 * Summary requests get a short structured summary.
 */
export function benchModel(request: RecordedRequest): ScriptedTurn {
  if (isSummaryRequest(request)) {
    return {
      toolCalls: [
        {
          name: 'record_summary',
          arguments: {
            summary:
              'The user went through the NBA workflow node by node: what each node does with the players and how errors are handled.',
            nodesMentioned: NODES,
            keyFindings: ['errors go to error-handler'],
            toolsUsed: [],
            topics: ['data flow', 'error handling'],
          },
        },
      ],
    };
  }
  // A question ends the request (OpenAI: a user message, then perhaps its DATA_ADDED event; Anthropic: a user turn
  // without tool results).
  const messages: Array<{ role: string; content?: unknown }> = request.body?.messages ?? [];
  const last = messages.findLast((message) => message.role !== 'system');
  const isQuestion = (message: { role: string; content?: unknown } | undefined) =>
    message?.role === 'user' &&
    !(
      Array.isArray(message.content) && message.content.some((block: { type?: string }) => block.type === 'tool_result')
    );
  const asking = isQuestion(last);
  const questions = messages.filter(isQuestion).length;
  if (asking && questions % 2 === 0) {
    return { toolCalls: [{ name: 'read_node_detail', arguments: { nodeKey: NODES[questions % NODES.length] } }] };
  }
  // Asked to remember something, a model says so in a sentence (an unrelated paragraph would dilute the turn's vector).
  if (asking && textOf(last).includes(FACT_MARKER)) return { text: ACKNOWLEDGEMENT, chunkSize: 64 };
  return {
    text:
      'It reads the players it receives, keeps the ones that match its settings and passes them on to the next node on sheet main. ' +
      'Errors go to its second output, which leads to error-handler. '.repeat(12),
    chunkSize: 64,
  };
}

/** The scripted answer to the message stating the fact. */
export const ACKNOWLEDGEMENT = 'Noted, I will keep it in mind for the rest of our work on the workflow.';

/** The text a message starts with: its content, or its first text block (Anthropic). */
function textOf(message: { content?: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.find((block: { type?: string; text?: string }) => block.type === 'text')?.text ?? '';
  return '';
}
