import { Role } from '../../auth/principal';
import type { Locale } from '../../config/app-config';
import { BUILT_IN_NODE_TYPES } from '../../graph/graph.types';
import { truncate } from '../../rag/text-truncation';
import { BUILT_IN_NODE_TYPE_DESCRIPTIONS } from '../../graph/built-in-node-types';
import { SystemPromptContext } from './system-prompt-context';
import { SYSTEM_PROMPT_TEXTS } from './system-prompt.texts';

/** A graph description is user content: bounded so one graph cannot blow up every prompt. */
const DESCRIPTION_MAX_CHARS = 1000;
const TYPE_DESCRIPTION_MAX_CHARS = 200;

/**
 * The system prompt (docs/retrieval.md): identity, graph, permissions, node types, rules, conventions,
 * and when to use tools and stop (self-evaluation, docs/agent.md "Smart stopping").
 * Stable for a given graph + workspace types + role + locale (no question, no date, types sorted),
 * so providers can cache it; the per-question context goes in a separate message
 * (buildContextMessage). English by default, French with locale 'fr'.
 */
export function buildSystemPrompt(context: SystemPromptContext, role: Role, locale: Locale = 'en'): string {
  const texts = SYSTEM_PROMPT_TEXTS[locale] ?? SYSTEM_PROMPT_TEXTS.en;
  // Same rule as canEdit(principal): editors and admins get the write tools.
  const editor = role === 'editor' || role === 'admin';
  const { graph } = context;

  const colon = texts.colon;
  const sheets = Object.entries(graph.sheets ?? {})
    .map(([id, name]) => `${id}: ${name}`)
    .join(', ');
  const graphBlock = [
    texts.graphTitle,
    `- ${texts.key}${colon}${graph._key}`,
    `- ${texts.name}${colon}${graph.name}`,
    ...(graph.description ? [`- ${texts.description}${colon}${truncate(graph.description, DESCRIPTION_MAX_CHARS)}`] : []),
    `- ${texts.sheets}${colon}${sheets}`,
  ];

  const builtIns = BUILT_IN_NODE_TYPES.map((type) => {
    const description = BUILT_IN_NODE_TYPE_DESCRIPTIONS[type];
    return `- ${type}${colon}${description[locale] ?? description.en} (${texts.handles}${colon}${description.handles})`;
  });
  const customs = [...context.nodeTypeConfigs]
    .sort((a, b) => (a._key < b._key ? -1 : a._key > b._key ? 1 : 0))
    .map((config) => {
      const parts = [`- ${config._key} "${config.displayName}"`];
      if (config.category) parts.push(` [${config.category}]`);
      if (config.description) parts.push(`${colon}${truncate(config.description, TYPE_DESCRIPTION_MAX_CHARS)}`);
      if (config.handlesSummary) parts.push(` (${texts.handles}${colon}${config.handlesSummary})`);
      return parts.join('');
    });

  return [
    texts.identity,
    graphBlock.join('\n'),
    `${texts.permissionsTitle(role)}\n${editor ? texts.editorPermissions : texts.viewerPermissions}`,
    [
      texts.typesTitle,
      texts.builtInTypes,
      ...builtIns,
      ...(customs.length > 0 ? [texts.customTypes, ...customs] : [texts.noCustomTypes]),
    ].join('\n'),
    [texts.rulesTitle, ...texts.rules(editor).map((rule, index) => `${index + 1}. ${rule}`)].join('\n'),
    [texts.conventionsTitle, ...texts.conventions.map((convention) => `- ${convention}`)].join('\n'),
    [texts.stoppingTitle, ...texts.stopping.map((line) => `- ${line}`)].join('\n'),
  ].join('\n\n');
}
