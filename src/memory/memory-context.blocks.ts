import type { Locale } from '../config/app-config';
import { MEMORY_CONTEXT_TEXTS } from './memory-context.texts';
import type { MemoryRecord } from './memory-record';
import type { RecalledMemory } from './recall/memory.recaller';

/** The recalled records of a message as one context block, best first; null when nothing was recalled. */
export function buildRecallBlock(recalled: readonly RecalledMemory[], locale: Locale = 'en'): string | null {
  if (recalled.length === 0) return null;
  const texts = MEMORY_CONTEXT_TEXTS[locale] ?? MEMORY_CONTEXT_TEXTS.en;
  return [texts.recallTitle, ...recalled.map(({ record, score }) => entry(record, texts, texts.score(score)))].join(
    '\n\n',
  );
}

/** The summaries standing for the pruned part of a history, oldest first; null when there are none. */
export function buildSummariesBlock(summaries: readonly MemoryRecord[], locale: Locale = 'en'): string | null {
  if (summaries.length === 0) return null;
  const texts = MEMORY_CONTEXT_TEXTS[locale] ?? MEMORY_CONTEXT_TEXTS.en;
  return [texts.summariesTitle, ...summaries.map((record) => entry(record, texts))].join('\n\n');
}

function entry(record: MemoryRecord, texts: (typeof MEMORY_CONTEXT_TEXTS)[Locale], score?: string): string {
  const title = record.level === 0 ? texts.turn(record.createdAt) : texts.summary(record.level, record.createdAt);
  const notes = [score, record.stale ? texts.stale : undefined].filter((note): note is string => note !== undefined);
  return `${title}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}:\n${record.text}`;
}
