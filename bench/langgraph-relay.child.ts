/**
 * LangGraph.js's relay for the service-vs-bare bench, as its documentation builds a tool-calling agent: a
 * StateGraph over MessagesAnnotation with a model node (ChatOpenAI on Chat Completions, the template's tools bound,
 * the template's instructions before the thread's messages) and a ToolNode (the template's tools defined with
 * `tool()` from their JSON schemas, each running the trivial local tool), `toolsCondition` between them, compiled
 * with a MemorySaver checkpointer and run on the conversation's thread id. It streams `['messages', 'updates']`:
 * one `ai:token` per message chunk of the model node; the model node's update announces its tool calls and the
 * tool node's carries their results. Over the shared Socket.IO contract (relay-socket.server.ts).
 */
import { AIMessage, AIMessageChunk, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Relay, RelayStart, serveRelayChild } from './relay-socket.server';
import { functionToolsOf, instructionsOf, trivialToolResult } from './relay-workload';

const MODEL_NODE = 'agent';
const TOOL_NODE = 'tools';

/** A text message's content as a string (the model node's answer). */
function textOf(message: BaseMessage): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' && 'text' in part ? String(part.text) : '')).join('');
}

function langGraphRelay({ baseURL, template }: RelayStart): Relay {
  const tools = functionToolsOf(template).map((definition) =>
    tool(async (input: unknown) => trivialToolResult(definition.name, JSON.stringify(input)), {
      name: definition.name,
      description: definition.description,
      schema: definition.parameters,
    }),
  );
  const model = new ChatOpenAI({ model: template.model, apiKey: 'bench', configuration: { baseURL } }).bindTools(tools);
  const instructions = instructionsOf(template.messages).map((message) => ({
    role: message.role,
    content: typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
  }));
  const graph = new StateGraph(MessagesAnnotation)
    .addNode(MODEL_NODE, async (state) => ({ messages: [await model.invoke([...instructions, ...state.messages])] }))
    .addNode(TOOL_NODE, new ToolNode(tools))
    .addEdge(START, MODEL_NODE)
    .addConditionalEdges(MODEL_NODE, toolsCondition, [TOOL_NODE, END])
    .addEdge(TOOL_NODE, MODEL_NODE)
    .compile({ checkpointer: new MemorySaver() });
  return {
    async converse({ threadId, question }, events) {
      const stream = await graph.stream(
        { messages: [{ role: 'user', content: question }] },
        { configurable: { thread_id: threadId }, streamMode: ['messages', 'updates'] },
      );
      let fullText = '';
      for await (const [mode, chunk] of stream) {
        if (mode === 'messages') {
          const [message, metadata] = chunk as [BaseMessage, { langgraph_node?: string }];
          if (metadata.langgraph_node !== MODEL_NODE || !AIMessageChunk.isInstance(message)) continue;
          const text = textOf(message);
          if (text.length > 0) events.token(text);
        } else if (mode === 'updates') {
          const update = chunk as Record<string, { messages?: BaseMessage[] } | undefined>;
          for (const message of update[MODEL_NODE]?.messages ?? []) {
            if (!AIMessage.isInstance(message)) continue;
            const calls = message.tool_calls ?? [];
            for (const call of calls) events.toolStart(call.id ?? '', call.name);
            if (calls.length === 0) fullText = textOf(message);
          }
          for (const message of update[TOOL_NODE]?.messages ?? [])
            if (ToolMessage.isInstance(message)) events.toolResult(message.tool_call_id, textOf(message));
        }
      }
      return fullText;
    },
  };
}

serveRelayChild(langGraphRelay);
