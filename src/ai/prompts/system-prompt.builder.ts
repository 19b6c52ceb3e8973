import { Role } from '../../auth/principal';
import type { Locale } from '../../config/app-config';
import { GraphRAGContext, NodeTypeConfigSummary } from '../../conversation/graph-rag-context';
import { BUILT_IN_NODE_TYPE_DESCRIPTIONS } from '../../graph/built-in-node-types';
import { BUILT_IN_NODE_TYPES } from '../../graph/graph.types';
import { truncate } from '../../rag/text-truncation';
import type { AlwaysSentKeys } from '../blocks/query.deduplicator';
import { GraphCounts, SystemPromptContext } from './system-prompt-context';
import { SYSTEM_PROMPT_TEXTS, SystemPromptTexts } from './system-prompt.texts';

/** A graph description is user content: bounded so one graph cannot blow up every prompt. */
const DESCRIPTION_MAX_CHARS = 1000;
const TYPE_DESCRIPTION_MAX_CHARS = 200;

/**
 * The three stable levels of every prompt, most stable first:
 *  1. `instructions`: identity, permissions, built-in node types, rules, conventions — the same for
 *     every graph, per role and locale (the tools' documentation travels with them, as tool definitions);
 *  2. `workspace`: the workspace's custom node types — the same for every graph of the workspace;
 *  3. `graphState`: the graph (key, name, description, sheets) and its size — changes when the graph does.
 * No question, no date, types sorted: byte-identical across the questions of a conversation, so
 * providers' prompt caches hit. The per-message data (retrieved nodes, recalled memory) is level 4,
 * sent after the history. Level 1 says when to use tools and stop (self-evaluation).
 */
export interface PromptLevels {
  instructions: string;
  /** The workspace's node types, then the graph's always-sent data (docs/protocol.md §9.6). */
  workspace: string;
  graphState: string;
  /** What level 2 holds of the graph's data (the blocks of a message never load it again); none when absent. */
  alwaysSent?: AlwaysSentKeys;
}

export function buildPromptLevels(context: SystemPromptContext, role: Role, locale: Locale = 'en'): PromptLevels {
  return {
    instructions: buildStaticInstructions(role, locale),
    workspace: buildWorkspaceData(context.nodeTypeConfigs, locale),
    graphState: buildGraphState(context.graph, context.counts, locale),
  };
}

/** The three levels as one text (the startup system message a thread stores; tools that print the prompt). */
export function buildSystemPrompt(context: SystemPromptContext, role: Role, locale: Locale = 'en'): string {
  return joinPromptLevels(buildPromptLevels(context, role, locale));
}

export function joinPromptLevels(levels: PromptLevels): string {
  return [levels.instructions, levels.workspace, levels.graphState].join('\n\n');
}

/** Level 1: identity, permissions, built-in types, rules, conventions, when to stop. English by default, French with 'fr'. */
export function buildStaticInstructions(role: Role, locale: Locale = 'en'): string {
  const texts = textsOf(locale);
  // Same rule as canEdit(principal): editors and admins get the write tools.
  const editor = role === 'editor' || role === 'admin';
  const colon = texts.colon;
  const builtIns = BUILT_IN_NODE_TYPES.map((type) => {
    const description = BUILT_IN_NODE_TYPE_DESCRIPTIONS[type];
    return `- ${type}${colon}${description[locale] ?? description.en} (${texts.handles}${colon}${description.handles})`;
  });
  return [
    texts.identity,
    `${texts.permissionsTitle(role)}\n${editor ? texts.editorPermissions : texts.viewerPermissions}`,
    [texts.typesTitle, texts.builtInTypes, ...builtIns].join('\n'),
    [texts.rulesTitle, ...texts.rules(editor).map((rule, index) => `${index + 1}. ${rule}`)].join('\n'),
    [texts.conventionsTitle, ...texts.conventions.map((convention) => `- ${convention}`)].join('\n'),
    [texts.stoppingTitle, ...texts.stopping.map((line) => `- ${line}`)].join('\n'),
  ].join('\n\n');
}

/** Level 2: the workspace's custom node types, sorted by key (their order in the store does not matter). */
export function buildWorkspaceData(configs: readonly NodeTypeConfigSummary[], locale: Locale = 'en'): string {
  const texts = textsOf(locale);
  const colon = texts.colon;
  const customs = [...configs]
    .sort((a, b) => (a._key < b._key ? -1 : a._key > b._key ? 1 : 0))
    .map((config) => {
      const parts = [`- ${config._key} "${config.displayName}"`];
      if (config.category) parts.push(` [${config.category}]`);
      if (config.description) parts.push(`${colon}${truncate(config.description, TYPE_DESCRIPTION_MAX_CHARS)}`);
      if (config.handlesSummary) parts.push(` (${texts.handles}${colon}${config.handlesSummary})`);
      return parts.join('');
    });
  return customs.length > 0 ? [texts.customTypes, ...customs].join('\n') : texts.noCustomTypes;
}

/** Level 3: the graph and, when known, its size in all and per sheet. */
export function buildGraphState(
  graph: GraphRAGContext['graph'],
  counts: GraphCounts | undefined,
  locale: Locale = 'en',
): string {
  const texts = textsOf(locale);
  const colon = texts.colon;
  const sheets = Object.entries(graph.sheets ?? {})
    .map(([id, name]) => `${id}: ${name}`)
    .join(', ');
  const lines = [
    texts.graphTitle,
    `- ${texts.key}${colon}${graph._key}`,
    `- ${texts.name}${colon}${graph.name}`,
    ...(graph.description
      ? [`- ${texts.description}${colon}${truncate(graph.description, DESCRIPTION_MAX_CHARS)}`]
      : []),
    `- ${texts.sheets}${colon}${sheets}`,
  ];
  if (counts) {
    const perSheet = Object.entries(counts.sheets).map(
      ([id, sheet]) => `${id} ${graph.sheets?.[id] ?? id}${colon}${texts.counts(sheet.nodes, sheet.edges)}`,
    );
    lines.push(
      `- ${texts.size}${colon}${texts.counts(counts.nodes, counts.edges)}${perSheet.length > 0 ? ` (${perSheet.join('; ')})` : ''}`,
    );
  }
  return lines.join('\n');
}

function textsOf(locale: Locale): SystemPromptTexts {
  return SYSTEM_PROMPT_TEXTS[locale] ?? SYSTEM_PROMPT_TEXTS.en;
}
