import type { Locale } from '../../config/app-config';

/**
 * What the tools tell the model in their results when a call cannot be answered as asked, in the
 * AI_LOCALE language like the system prompt. Field names, statuses, keys
 * and tool names stay as they are: they are identifiers the model passes back.
 */
export interface ToolResultTexts {
  // Arguments, as the toolbox and the read executor parse them.
  argumentsNotJson: (reason: string) => string;
  argumentsNotObject: string;
  unknownTool: (name: string, available: readonly string[]) => string;
  readOnlyUser: (name: string) => string;
  // Read tools.
  readFailed: (name: string) => string;
  unknownNode: (nodeKey: string) => string;
  unknownNodeHint: string;
  graphGone: (graphKey: string) => string;
  otherGraph: (graphKey: string) => string;
  unknownNodeType: (typeKey: string) => string;
  unknownSheet: (sheet: string) => string;
  noSearchMatch: string;
  tooManyNeighbours: string;
  /** A result shortened to fit (lists cut, or the text cut). */
  listsCut: string;
  textCut: string;
  // Proposals the action policy refuses.
  policyReadOnly: string;
  policyForbids: (kinds: string) => string;
  policyAsksFirst: (kinds: string) => string;
  // Proposals whose references do not match the graph.
  proposalGraphGone: (graphKey: string) => string;
  proposalRefused: (problems: string) => string;
  /** A created node's data does not match its type's data schema (one sentence per node). */
  proposalDataRefused: (problems: string) => string;
  dataSchemaMismatch: (nodeType: string, nodeKey: string | undefined, problems: string) => string;
  missingNode: (nodeKey: string) => string;
  nodeDeletedByProposal: (nodeKey: string) => string;
  nodeCreatedTwice: (nodeKey: string) => string;
  nodeExists: (nodeKey: string) => string;
  missingEdge: (edgeKey: string) => string;
  edgeCreatedTwice: (edgeKey: string) => string;
  edgeExists: (edgeKey: string) => string;
  validSheets: (list: string) => string;
  noSheets: string;
  ambiguousSheet: (sheet: string, ids: string) => string;
  missingSheet: (sheet: string) => string;
}

export const TOOL_RESULT_TEXTS: Readonly<Record<Locale, ToolResultTexts>> = Object.freeze({
  en: {
    argumentsNotJson: (reason) =>
      `The arguments are not valid JSON (${reason}). Call the tool again with valid JSON arguments.`,
    argumentsNotObject: 'The arguments must be a JSON object. Call the tool again with a JSON object.',
    unknownTool: (name, available) => `Unknown tool "${name}". Available tools: ${available.join(', ')}.`,
    readOnlyUser: (name) =>
      `The tool ${name} is not available: this user can only read the graph, so no change can be proposed. Answer with an explanation instead.`,
    readFailed: (name) =>
      `The tool ${name} failed while reading the graph; try again later or answer with what you know.`,
    unknownNode: (nodeKey) => `Node "${nodeKey}" does not exist in this graph.`,
    unknownNodeHint: 'Use search_nodes to find the right node key; keys are case-sensitive local keys.',
    graphGone: (graphKey) => `Graph "${graphKey}" no longer exists.`,
    otherGraph: (graphKey) =>
      `This conversation is about graph "${graphKey}" only; other graphs cannot be read. Call read_graph_overview without graphKey.`,
    unknownNodeType: (typeKey) => `Node type "${typeKey}" does not exist in this workspace.`,
    unknownSheet: (sheet) => `Sheet "${sheet}" does not exist in this graph.`,
    noSearchMatch: 'No node matched. Try other or fewer words, or read_graph_overview to see the node types.',
    tooManyNeighbours: 'Lower maxDepth or choose a direction to see fewer, closer nodes.',
    listsCut: 'The result was too long: the last items of these lists were left out. Narrow the request to see them.',
    textCut:
      'The result was too long: partialResult holds the beginning of its JSON text. Narrow the request to see the rest.',
    policyReadOnly: 'This user can only read the graph: no change can be proposed. Answer with an explanation instead.',
    policyForbids: (kinds) =>
      `The policy of this workspace forbids ${kinds}: nothing was proposed and nothing changed. ` +
      'Do not try again; tell the user that this change is not allowed here and what they could do instead.',
    policyAsksFirst: (kinds) =>
      `The policy of this workspace requires asking the user before proposing ${kinds}: nothing was proposed. ` +
      'First call ask_user with kind "confirm", forAction naming the kind of change and the node or edge it concerns, and a ' +
      'question that says exactly what you intend to change and why; if the user answers yes, make the same proposal again ' +
      'in your next reply. A yes to any other question allows nothing.',
    proposalGraphGone: (graphKey) => `The graph "${graphKey}" does not exist anymore: no change can be proposed.`,
    proposalRefused: (problems) =>
      `The proposal was not shown to the user: its references do not match the graph. ${problems} Correct it and call the tool again.`,
    proposalDataRefused: (problems) =>
      `The proposal was not shown to the user: the data of a node it creates does not match its type's data schema. ${problems} Correct it and call the tool again.`,
    dataSchemaMismatch: (nodeType, nodeKey, problems) =>
      `The new ${nodeKey ? `node "${nodeKey}"` : 'node'} of type "${nodeType}": ${problems}.`,
    missingNode: (nodeKey) => `Node "${nodeKey}" does not exist (use a node _key from the context or the read tools).`,
    nodeDeletedByProposal: (nodeKey) => `Node "${nodeKey}" is deleted by this same proposal.`,
    nodeCreatedTwice: (nodeKey) => `The node key "${nodeKey}" is created twice.`,
    nodeExists: (nodeKey) => `A node "${nodeKey}" already exists: choose another nodeKey or omit it.`,
    missingEdge: (edgeKey) => `Edge "${edgeKey}" does not exist (use an edge _key from the context or the read tools).`,
    edgeCreatedTwice: (edgeKey) => `The edge key "${edgeKey}" is created twice.`,
    edgeExists: (edgeKey) => `An edge "${edgeKey}" already exists: choose another edgeKey or omit it.`,
    validSheets: (list) => `Valid sheets (id and name): ${list}; give the sheet id.`,
    noSheets: 'This graph has no sheets.',
    ambiguousSheet: (sheet, ids) => `The sheet name "${sheet}" is ambiguous (sheets ${ids}).`,
    missingSheet: (sheet) => `Sheet "${sheet}" does not exist.`,
  },
  fr: {
    argumentsNotJson: (reason) =>
      `Les arguments ne sont pas du JSON valide (${reason}). Rappelle l'outil avec des arguments JSON valides.`,
    argumentsNotObject: "Les arguments doivent être un objet JSON. Rappelle l'outil avec un objet JSON.",
    unknownTool: (name, available) => `Outil inconnu "${name}". Outils disponibles : ${available.join(', ')}.`,
    readOnlyUser: (name) =>
      `L'outil ${name} n'est pas disponible : cet utilisateur ne peut que lire le graph, aucune modification ne peut être proposée. Réponds plutôt par une explication.`,
    readFailed: (name) =>
      `L'outil ${name} a échoué en lisant le graph ; réessaie plus tard ou réponds avec ce que tu sais.`,
    unknownNode: (nodeKey) => `Le node "${nodeKey}" n'existe pas dans ce graph.`,
    unknownNodeHint:
      'Utilise search_nodes pour trouver la bonne clé de node ; les clés sont des clés locales sensibles à la casse.',
    graphGone: (graphKey) => `Le graph "${graphKey}" n'existe plus.`,
    otherGraph: (graphKey) =>
      `Cette conversation porte uniquement sur le graph "${graphKey}" ; les autres graphs ne peuvent pas être lus. Appelle read_graph_overview sans graphKey.`,
    unknownNodeType: (typeKey) => `Le type de node "${typeKey}" n'existe pas dans ce workspace.`,
    unknownSheet: (sheet) => `La sheet "${sheet}" n'existe pas dans ce graph.`,
    noSearchMatch:
      "Aucun node ne correspond. Essaie d'autres mots, ou moins de mots, ou read_graph_overview pour voir les types de nodes.",
    tooManyNeighbours: 'Baisse maxDepth ou choisis une direction pour voir moins de nodes, plus proches.',
    listsCut:
      'Le résultat était trop long : les derniers éléments de ces listes ont été omis. Précise la demande pour les voir.',
    textCut:
      'Le résultat était trop long : partialResult contient le début de son texte JSON. Précise la demande pour voir la suite.',
    policyReadOnly:
      'Cet utilisateur ne peut que lire le graph : aucune modification ne peut être proposée. Réponds plutôt par une explication.',
    policyForbids: (kinds) =>
      `La politique de ce workspace interdit ${kinds} : rien n'a été proposé et rien n'a changé. ` +
      "N'essaie pas à nouveau ; dis à l'utilisateur que cette modification n'est pas permise ici et ce qu'il pourrait faire à la place.",
    policyAsksFirst: (kinds) =>
      `La politique de ce workspace demande de consulter l'utilisateur avant de proposer ${kinds} : rien n'a été proposé. ` +
      'Appelle d\'abord ask_user avec le kind "confirm", forAction nommant le type de modification et le nœud ou le lien concerné, ' +
      'et une question qui dit exactement ce que tu veux modifier et pourquoi ; ' +
      "si l'utilisateur répond oui, refais la même proposition dans ta réponse suivante. Un oui à une autre question ne permet rien.",
    proposalGraphGone: (graphKey) =>
      `Le graph "${graphKey}" n'existe plus : aucune modification ne peut être proposée.`,
    proposalRefused: (problems) =>
      `La proposition n'a pas été montrée à l'utilisateur : ses références ne correspondent pas au graph. ${problems} Corrige-la et rappelle l'outil.`,
    proposalDataRefused: (problems) =>
      `La proposition n'a pas été montrée à l'utilisateur : les data d'un node qu'elle crée ne correspondent pas au schéma de son type. ${problems} Corrige-la et rappelle l'outil.`,
    dataSchemaMismatch: (nodeType, nodeKey, problems) =>
      `Le nouveau ${nodeKey ? `node "${nodeKey}"` : 'node'} de type "${nodeType}" : ${problems}.`,
    missingNode: (nodeKey) =>
      `Le node "${nodeKey}" n'existe pas (utilise une _key de node du contexte ou des outils de lecture).`,
    nodeDeletedByProposal: (nodeKey) => `Le node "${nodeKey}" est supprimé par cette même proposition.`,
    nodeCreatedTwice: (nodeKey) => `La clé de node "${nodeKey}" est créée deux fois.`,
    nodeExists: (nodeKey) => `Un node "${nodeKey}" existe déjà : choisis une autre nodeKey ou omets-la.`,
    missingEdge: (edgeKey) =>
      `L'edge "${edgeKey}" n'existe pas (utilise une _key d'edge du contexte ou des outils de lecture).`,
    edgeCreatedTwice: (edgeKey) => `La clé d'edge "${edgeKey}" est créée deux fois.`,
    edgeExists: (edgeKey) => `Une edge "${edgeKey}" existe déjà : choisis une autre edgeKey ou omets-la.`,
    validSheets: (list) => `Sheets valides (id et nom) : ${list} ; donne l'id de la sheet.`,
    noSheets: "Ce graph n'a aucune sheet.",
    ambiguousSheet: (sheet, ids) => `Le nom de sheet "${sheet}" est ambigu (sheets ${ids}).`,
    missingSheet: (sheet) => `La sheet "${sheet}" n'existe pas.`,
  },
});

export function toolResultTexts(locale: Locale | undefined): ToolResultTexts {
  return TOOL_RESULT_TEXTS[locale ?? 'en'] ?? TOOL_RESULT_TEXTS.en;
}
