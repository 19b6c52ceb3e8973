import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { ContextAssembler } from '../ai/context/context.assembler';
import { AlwaysSendData, buildAlwaysSendData } from '../ai/prompts/always-send-data.builder';
import { EMPTY_ALWAYS_SEND } from '../always-send/always-send';
import type { AlwaysSendRepository } from '../always-send/always-send.repository';
import { ALWAYS_SEND_REPOSITORY } from '../always-send/always-send-repository.token';
import type { AppConfig } from '../config/app-config';
import type { GraphDataSource } from '../graph/graph-data-source';
import type { Graph } from '../graph/graph.types';
import { approximateTokens } from '../providers/token-estimate';
import { buildPromptLevels, joinPromptLevels } from '../ai/prompts/system-prompt.builder';
import { loadSystemPromptContext } from '../ai/prompts/system-prompt-context';
import { AgentToolbox } from '../ai/tools/agent.toolbox';
import { ReadToolExecutor } from '../ai/tools/read/read-tool.executor';
import { Role } from '../auth/principal';
import { LlmMessage } from '../conversation/llm-message';
import { TokenCounter } from '../rag/token-counter';
import { buildContextMessage } from '../rag/toon-context.encoder';
import { EMPTY_USAGE, ThreadMessage, ThreadRecord } from '../threads/thread.types';
import { CliIo, openCliContext, runCli } from './cli-context';
import { runAuthorityFor } from './cli-run-authority';
import { GraphQuestion, parseGraphQuestion, retrieveQuestionContext } from './graph-question';

const USAGE = 'Usage: npm run ai:dump-prompt -- --graph KEY [--workspace NAME] [--role viewer|editor|admin] "question"';
const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/**
 * `npm run ai:dump-prompt`: the whole message list the first round of a new
 * conversation sends, assembled as QuestionRun assembles it (ContextAssembler), level by level:
 * 1 instructions, 2 the workspace's node types, 3 the graph's state
 * — each closed by a cache breakpoint — then 4 the message's own data (the retrieved context) and the
 * question; each with a token estimate (TokenCounter, o200k), then the tools offered to that role
 * with their own estimate, and the total.
 */
/** The graph's always-sent data as level 2 carries it (nothing when the graph never stored a list). */
async function alwaysSentData(
  app: INestApplicationContext,
  source: GraphDataSource,
  graphKey: string,
  config: AppConfig,
): Promise<AlwaysSendData> {
  const graph = await source.getGraph(graphKey);
  const repository = app.get<AlwaysSendRepository>(ALWAYS_SEND_REPOSITORY, { strict: false });
  const list = graph ? await repository.get(source.workspace, graphKey) : null;
  return buildAlwaysSendData(source, graph as Graph, list ?? EMPTY_ALWAYS_SEND, {
    locale: config.locale,
    maxTokens: config.agent.alwaysSendMaxTokens,
    countTokens: approximateTokens,
  });
}

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
    const built = buildPromptLevels(await loadSystemPromptContext(source, graphKey), role, locale);
    const alwaysSent = await alwaysSentData(cli.app, source, graphKey, cli.config);
    const levels = alwaysSent.text ? { ...built, workspace: `${built.workspace}\n\n${alwaysSent.text}` } : built;
    const now = Date.now();
    const contextMessage: ThreadMessage = {
      id: 'm2',
      role: 'system',
      kind: 'rag_context',
      content: buildContextMessage(context, locale),
      createdTime: now,
    };
    const thread: ThreadRecord = {
      threadId: 'ai_dump',
      type: 'chat',
      workspace,
      userId: 'cli',
      graphKey,
      title: question.text,
      messages: [
        { id: 'm1', role: 'system', kind: 'system_prompt', content: joinPromptLevels(levels), createdTime: now },
        contextMessage,
        { id: 'm3', role: 'user', content: question.text, createdTime: now },
      ],
      pendingInterrupt: null,
      revision: 1,
      usage: { ...EMPTY_USAGE },
      createdTime: now,
      lastUpdatedTime: now,
    };
    const count = (text: string) => counter.count(text);
    const assembled = await new ContextAssembler(null, {
      maxTokens: cli.config.agent.historyMaxTokens,
      countTokens: count,
    }).assemble({
      levels,
      thread,
      currentContext: contextMessage,
    });
    const { messages } = assembled;
    const authority = await runAuthorityFor(cli.app, workspace, role);
    const tools = new AgentToolbox({ authority, readTools: new ReadToolExecutor(source, graphKey) }).definitions;
    const toolTokens = counter.count(JSON.stringify(tools));
    const messageTokens = counter.countMessages(messages);

    const lines = [
      `Graph ${workspace}/${graphKey}, role ${role}, locale ${locale}, search mode ${context.retrieval.searchMode}`,
      alwaysSent.text
        ? `Always sent (level 2, PUT /api/ai/graphs/${graphKey}/always-send): ~${alwaysSent.tokens} of ${cli.config.agent.alwaysSendMaxTokens} tokens${alwaysSent.leftOut.length > 0 ? `; left out: ${alwaysSent.leftOut.join(', ')}` : ''}${alwaysSent.missing.length > 0 ? `; not in the graph: ${alwaysSent.missing.join(', ')}` : ''}`
        : 'Always sent (level 2): nothing',
      '',
    ];
    messages.forEach((message, index) => {
      lines.push(
        `=== [${index + 1}] ${describe(message, index)} — ~${counter.count(message.content ?? '')} tokens ===`,
        message.content ?? '',
        '',
      );
    });
    lines.push(
      `Tools offered: ${tools.length} (${tools.map((tool) => tool.function.name).join(', ')}) — ~${toolTokens} tokens`,
      `Estimated prompt: ~${messageTokens} tokens of messages + ~${toolTokens} tokens of tools = ~${messageTokens + toolTokens} tokens (o200k; other vendors tokenise differently)`,
      `Stable prefix (tools and levels 1-3, cached by providers across questions): ~${toolTokens + assembled.tokens.instructions + assembled.tokens.workspace + assembled.tokens.graphState} tokens`,
      '',
    );
    io.stdout.write(lines.join('\n'));
    return 0;
  } finally {
    await cli.close();
  }
}

/** Where a message of the assembled prompt belongs (the first three are the stable levels). */
function describe(message: LlmMessage, index: number): string {
  const breakpoint = message.cacheBreakpoint ? ', cache breakpoint after it' : '';
  if (index < STABLE_LEVELS.length) return `level ${index + 1}: ${STABLE_LEVELS[index]}${breakpoint}`;
  if (message.role === 'system')
    return `level 4: per-message data (the retrieved context for this question)${breakpoint}`;
  return `${message.role === 'user' ? 'the question' : message.role}${breakpoint}`;
}

const STABLE_LEVELS = [
  'instructions and rules (per role and locale)',
  "the workspace's node types",
  "the graph's state (sheets, size)",
];

if (require.main === module) runCli(dumpPrompt);
