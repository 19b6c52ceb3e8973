import type { Locale } from '../../config/app-config';
import { EMBEDDING_STOP_WORDS } from '../../embeddings/embedding-stop-words';
import { keyCandidatesIn } from '../node-mention.checker';
import { ConversationSummarizer, SummaryRequest, SummaryResult } from './conversation-summary';
import { SUMMARY_PROMPT_TEXTS } from './summary-prompt.texts';

const SENTENCE_MAX_CHARS = 160;
const SUMMARY_MAX_CHARS = 1500;
const TOPICS = 5;
const TOPIC_MIN_LETTERS = 4;

/**
 * The summary when no model is configured (the offline provider): no call, no cost, and honest about
 * it — the text starts with a label saying it is extractive, then quotes the first sentence of each
 * line of its sources (each question and answer of a level-1 summary's turns; each level-1 summary of
 * a level-2 one), in order, up to 1,500 characters. Findings and tools are the union of its sources';
 * node keys are candidates (words of the text), checked against the graph like a model's; topics are
 * the most frequent content words.
 */
export class ExtractiveConversationSummarizer implements ConversationSummarizer {
  constructor(private readonly locale: Locale = 'en') {}

  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    const texts = SUMMARY_PROMPT_TEXTS[this.locale] ?? SUMMARY_PROMPT_TEXTS.en;
    const quotes: string[] = [];
    let length = texts.extractiveLabel.length;
    for (const line of request.sources.flatMap((source) => quotedLines(source.text, texts.extractiveLabel))) {
      if (length + line.length + 1 > SUMMARY_MAX_CHARS) break;
      quotes.push(line);
      length += line.length + 1;
    }
    const allText = request.sources.map((source) => source.text).join('\n');
    const union = (pick: (source: SummaryRequest['sources'][number]) => readonly string[]) => [
      ...new Set(request.sources.flatMap(pick)),
    ];
    return {
      summary: {
        summary: [texts.extractiveLabel, ...quotes].join('\n'),
        nodesMentioned: [...new Set([...union((source) => source.nodesMentioned), ...keyCandidatesIn(allText)])],
        keyFindings: union((source) => source.keyFindings),
        toolsUsed: union((source) => source.toolsUsed),
        topics: frequentWords(allText),
      },
      author: 'extractive',
      usage: null,
      provider: 'offline',
      model: 'extractive',
    };
  }
}

/** "User: …" / "Assistant: …" lines (and plain summary lines) reduced to their first sentence; tool lines and labels left out. */
function quotedLines(text: string, label: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && line !== label && !line.startsWith('- ') && !line.endsWith(':'))
    .map(firstSentence);
}

function firstSentence(line: string): string {
  const end = line.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? line : line.slice(0, end + 1);
  return sentence.length <= SENTENCE_MAX_CHARS ? sentence : `${sentence.slice(0, SENTENCE_MAX_CHARS - 1)}…`;
}

function frequentWords(text: string): string[] {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/\p{L}[\p{L}\p{N}_-]*/gu) ?? []) {
    if (word.length < TOPIC_MIN_LETTERS || EMBEDDING_STOP_WORDS.has(word) || word === 'user' || word === 'assistant')
      continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOPICS)
    .map(([word]) => word);
}
