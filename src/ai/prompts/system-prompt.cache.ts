import { Role } from '../../auth/principal';
import type { Locale } from '../../config/app-config';
import { Graph, NodeTypeConfig } from '../../graph/graph.types';
import { systemPromptContextOf } from './system-prompt-context';
import { buildSystemPrompt } from './system-prompt.builder';

/**
 * System prompts (buildSystemPrompt) already built, per graph document, node configs, role and
 * locale. Every new thread starts with one, and the same few are rebuilt again and again (~0.25 ms
 * each: summaries of every custom type, then the text).
 *
 * Keyed by the identity of the documents, and only for frozen ones: a store that shares its decoded
 * documents (the embedded store, per graph and per configs revision) hands out a new document when
 * the graph or the configs change, so a change is a miss and the old prompts go with the old
 * documents (weak keys). Documents that are not frozen (read fresh on every call, or mutable) are
 * never cached: their prompt is built every time, as without the cache.
 */
export class SystemPromptCache {
  private readonly prompts = new WeakMap<Graph, WeakMap<readonly NodeTypeConfig[], Map<string, string>>>();

  promptFor(graph: Graph, configs: readonly NodeTypeConfig[], role: Role, locale: Locale): string {
    if (!Object.isFrozen(graph) || !Object.isFrozen(configs)) return build(graph, configs, role, locale);
    let byConfigs = this.prompts.get(graph);
    if (!byConfigs) {
      byConfigs = new WeakMap();
      this.prompts.set(graph, byConfigs);
    }
    let byRole = byConfigs.get(configs);
    if (!byRole) {
      byRole = new Map();
      byConfigs.set(configs, byRole);
    }
    const key = `${role}:${locale}`;
    let prompt = byRole.get(key);
    if (prompt === undefined) {
      prompt = build(graph, configs, role, locale);
      byRole.set(key, prompt);
    }
    return prompt;
  }
}

function build(graph: Graph, configs: readonly NodeTypeConfig[], role: Role, locale: Locale): string {
  return buildSystemPrompt(systemPromptContextOf(graph, configs), role, locale);
}
