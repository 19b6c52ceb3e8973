import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions/completions';

/**
 * What every relay of the service-vs-bare bench sends upstream: the service's own request (captured by the bench),
 * with the conversation's question as its last user message, and the tools the service declares. Each relay runs
 * the same trivial local tool whatever the model calls.
 */
export interface RelayTemplate {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
}

/** The template's messages with the last user message's text replaced by `question`. */
export function withQuestion(messages: ChatCompletionMessageParam[], question: string): ChatCompletionMessageParam[] {
  const last = messages.map((message) => message.role).lastIndexOf('user');
  return messages.map((message, index) => (index === last ? { role: 'user', content: question } : message));
}

/** The messages before the last user message (the instructions a relay sends before each question). */
export function instructionsOf(messages: ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  const last = messages.map((message) => message.role).lastIndexOf('user');
  return last < 0 ? messages : messages.slice(0, last);
}

/** The function tools of the template (name, description, JSON schema of the arguments). */
export function functionToolsOf(
  template: RelayTemplate,
): Array<{ name: string; description: string; parameters: Record<string, unknown> }> {
  return (template.tools ?? []).flatMap((tool) =>
    tool.type === 'function'
      ? [
          {
            name: tool.function.name,
            description: tool.function.description ?? '',
            parameters: tool.function.parameters ?? { type: 'object', properties: {} },
          },
        ]
      : [],
  );
}

/** The trivial local tool: answers every call at once. `argumentsText` is the call's arguments as JSON text. */
export function trivialToolResult(name: string, argumentsText: string): string {
  return JSON.stringify({ tool: name, arguments: argumentsText, result: 'ok' });
}
