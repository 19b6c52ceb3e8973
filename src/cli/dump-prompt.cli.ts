import 'reflect-metadata';
import { buildSystemPrompt } from '../ai/prompts/system-prompt.builder';
import { loadSystemPromptContext } from '../ai/prompts/system-prompt-context';
import { AgentToolbox } from '../ai/tools/agent.toolbox';
import { ReadToolExecutor } from '../ai/tools/read/read-tool.executor';
import { Role } from '../auth/principal';
import { LlmMessage } from '../conversation/llm-message';
import { TokenCounter } from '../rag/token-counter';
import { buildContextMessage } from '../rag/toon-context.encoder';
import { buildLlmHistory } from '../threads/history/llm-history.builder';
import { ThreadMessage } from '../threads/thread.types';
import { CliIo, openCliContext, runCli } from './cli-context';
import { runPolicyFor } from './cli-run-policy';
import { GraphQuestion, parseGraphQuestion, retrieveQuestionContext } from './graph-question';

const USAGE = 'Usage: npm run ai:dump-prompt -- --graph KEY [--workspace NAME] [--role viewer|editor|admin] "question"';
const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/**
 * `npm run ai:dump-prompt` (docs/protocol.md §7): the whole message list the first round of a new
 * conversation sends — the stable system prompt for the role, the RAG context message, the user's
 * question — built as ChatService builds it, with a token estimate per message and in total
 * (TokenCounter, o200k), and the tools offered to that role under the workspace's action policy with their own estimate.
 */
export async function dumpPrompt(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let question: GraphQuestion;
  let role: Role;
  try {
    const parsed = parseGraphQuestion(argv, ['role']);
    question = parsed.question;
    role = (parsed.args.option('role') ?? 'viewer') as Role;
    if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { graphKey, workspace } = question;

  const cli = await openCliContext(env, { seedDemo: true });
  try {
    const counter = cli.app.get(TokenCounter, { strict: false });
    const { source, context } = await retrieveQuestionContext(cli.app, question);
    const locale = cli.config.locale;
    const now = Date.now();
    const thread: ThreadMessage[] = [
      { id: 'm1', role: 'system', kind: 'system_prompt', content: buildSystemPrompt(await loadSystemPromptContext(source, graphKey), role, locale), createdTime: now },
      { id: 'm2', role: 'system', kind: 'rag_context', content: buildContextMessage(context, locale), createdTime: now },
      { id: 'm3', role: 'user', content: question.text, createdTime: now },
    ];
    const { messages } = buildLlmHistory({ threadId: 'dump-prompt', messages: thread, maxTokens: cli.config.agent.historyMaxTokens, countTokens: (text) => counter.count(text) });
    const policy = await runPolicyFor(cli.app, workspace, role);
    const tools = new AgentToolbox({ policy, readTools: new ReadToolExecutor(source, graphKey) }).definitions;
    const toolTokens = counter.count(JSON.stringify(tools));
    const messageTokens = counter.countMessages(messages);

    const lines = [`Graph ${workspace}/${graphKey}, role ${role}, locale ${locale}, search mode ${context.retrieval.searchMode}`, ''];
    messages.forEach((message, index) => {
      lines.push(`=== [${index + 1}] ${describe(message)} — ~${counter.count(message.content ?? '')} tokens ===`, message.content ?? '', '');
    });
    lines.push(
      `Tools offered: ${tools.length} (${tools.map((tool) => tool.function.name).join(', ')}) — ~${toolTokens} tokens`,
      `Estimated prompt: ~${messageTokens} tokens of messages + ~${toolTokens} tokens of tools = ~${messageTokens + toolTokens} tokens (o200k; other vendors tokenise differently)`,
      '',
    );
    io.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    await cli.close();
  }
}

function describe(message: LlmMessage): string {
  if (message.role === 'system') return message.cacheBreakpoint ? 'system (stable prompt, cache breakpoint after it)' : 'system (RAG context for this question)';
  return message.role;
}

if (require.main === module) runCli(dumpPrompt);
