import type { Locale } from '../config/app-config';
import type { GraphRAGContext, RelevantEdge, RelevantNode } from '../conversation/graph-rag-context';

const MAX_NODES = 8;
const MAX_EDGES = 12;
const LINE_MAX_CHARS = 100;

interface OfflineTexts {
  notice: string;
  howTo: string;
  noContext: string;
  noNodes: (graph: string) => string;
  intro: (graph: string) => string;
  type: string;
  sheet: string;
  process: string;
  data: string;
  moreNodes: (count: number) => string;
  connections: string;
  noConnections: string;
  moreEdges: (count: number) => string;
}

const TEXTS: Record<Locale, OfflineTexts> = {
  en: {
    notice:
      'No language model is configured on this service, so this answer was extracted directly from the graph, without AI.',
    howTo:
      'To get real answers, set DEEPSEEK_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY (or OLLAMA_BASE_URL for a local Ollama, ' +
      'or LLM_PROVIDER=openai-compatible with LLM_BASE_URL and LLM_MODEL) and restart the service.',
    noContext: 'No graph context was retrieved for this question.',
    noNodes: (graph) => `No node of graph "${graph}" matched the question.`,
    intro: (graph) => `The parts of graph "${graph}" most relevant to the question:`,
    type: 'type',
    sheet: 'sheet',
    process: 'process',
    data: 'data',
    moreNodes: (count) => `(${count} more node${count === 1 ? '' : 's'} not shown)`,
    connections: 'How they connect:',
    noConnections: 'These nodes are not connected to each other.',
    moreEdges: (count) => `(${count} more connection${count === 1 ? '' : 's'} not shown)`,
  },
  fr: {
    notice:
      "Aucun modèle de langage n'est configuré sur ce service : cette réponse est extraite directement du graphe, sans IA.",
    howTo:
      'Pour obtenir de vraies réponses, définissez DEEPSEEK_API_KEY, OPENAI_API_KEY ou ANTHROPIC_API_KEY (ou OLLAMA_BASE_URL pour un Ollama local, ' +
      'ou LLM_PROVIDER=openai-compatible avec LLM_BASE_URL et LLM_MODEL) puis redémarrez le service.',
    noContext: "Aucun contexte de graphe n'a été récupéré pour cette question.",
    noNodes: (graph) => `Aucun nœud du graphe « ${graph} » ne correspond à la question.`,
    intro: (graph) => `Les parties du graphe « ${graph} » les plus pertinentes pour la question :`,
    type: 'type',
    sheet: 'feuille',
    process: 'traitement',
    data: 'données',
    moreNodes: (count) =>
      `(${count} autre${count === 1 ? '' : 's'} nœud${count === 1 ? '' : 's'} non affiché${count === 1 ? '' : 's'})`,
    connections: 'Comment ils sont reliés :',
    noConnections: 'Ces nœuds ne sont pas reliés entre eux.',
    moreEdges: (count) =>
      `(${count} autre${count === 1 ? '' : 's'} liaison${count === 1 ? '' : 's'} non affichée${count === 1 ? '' : 's'})`,
  },
};

function clip(text: string): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > LINE_MAX_CHARS ? `${single.slice(0, LINE_MAX_CHARS - 1)}…` : single;
}

/** The first line of the process code that says something (not a lone brace or blank). */
function processLine(process: string): string {
  const line = process
    .split('\n')
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate !== '' && !/^[{}()[\];,]+$/.test(candidate));
  return line ? clip(line) : '';
}

function describeNode(node: RelevantNode, texts: OfflineTexts): string {
  const label =
    node.typeName && node.typeName !== node.type
      ? `${node.typeName} (${texts.type} ${node.type})`
      : `${texts.type} ${node.type}`;
  const lines = [`- ${node._key}: ${label}, ${texts.sheet} "${node.sheetName || node.sheet}"`];
  const code = processLine(node.process ?? '');
  if (code) lines.push(`  ${texts.process}: ${code}`);
  const data = node.dataSummary ? clip(node.dataSummary) : '';
  if (data && data !== '{}' && data !== 'null') lines.push(`  ${texts.data}: ${data}`);
  return lines.join('\n');
}

function describeEdge(edge: RelevantEdge): string {
  return `- ${edge.source} → ${edge.target}${edge.label ? ` (${edge.label})` : ''}`;
}

/**
 * The offline provider's honest answer: no model, so it says so first (and how to configure one),
 * then lists what retrieval found — the relevant nodes (type, display name, a line of their
 * process and data) and how they connect. Deterministic; no content is invented.
 */
export function buildOfflineAnswer(context: GraphRAGContext | undefined, locale: Locale = 'en'): string {
  const texts = TEXTS[locale];
  const parts = [`${texts.notice}\n${texts.howTo}`];
  if (!context) {
    parts.push(texts.noContext);
    return parts.join('\n\n');
  }
  const graphName = context.graph.name || context.graph._key;
  if (context.relevantNodes.length === 0) {
    parts.push(texts.noNodes(graphName));
    return parts.join('\n\n');
  }
  const shown = context.relevantNodes.slice(0, MAX_NODES);
  const nodeLines = shown.map((node) => describeNode(node, texts));
  const hiddenNodes = context.relevantNodes.length - shown.length;
  if (hiddenNodes > 0) nodeLines.push(texts.moreNodes(hiddenNodes));
  parts.push(`${texts.intro(graphName)}\n${nodeLines.join('\n')}`);

  const shownKeys = new Set(shown.map((node) => node._key));
  const edges = context.relevantEdges.filter((edge) => shownKeys.has(edge.source) && shownKeys.has(edge.target));
  if (edges.length === 0) {
    parts.push(texts.noConnections);
  } else {
    const edgeLines = edges.slice(0, MAX_EDGES).map(describeEdge);
    if (edges.length > MAX_EDGES) edgeLines.push(texts.moreEdges(edges.length - MAX_EDGES));
    parts.push(`${texts.connections}\n${edgeLines.join('\n')}`);
  }
  return parts.join('\n\n');
}
