import { BUILT_IN_NODE_TYPES } from './graph.types';

export type BuiltInNodeType = (typeof BUILT_IN_NODE_TYPES)[number];

export interface BuiltInNodeTypeDescription {
  /** Usual handles, in the model-facing form. */
  handles: string;
  en: string;
  fr: string;
}

/** What the 4 built-in types do (they have no NodeTypeConfig); used by the system prompt and the read tools. */
export const BUILT_IN_NODE_TYPE_DESCRIPTIONS: Readonly<Record<BuiltInNodeType, BuiltInNodeTypeDescription>> =
  Object.freeze({
    starter: {
      handles: 'L:in(any), R:out(any)',
      en: 'start of the workflow: execution begins here; it receives the entry data (if any) and passes it to the next nodes.',
      fr: "début du workflow : l'exécution commence ici ; il reçoit les données d'entrée (s'il y en a) et les transmet aux nodes suivants.",
    },
    return: {
      handles: 'L:in(any)',
      en: 'end of the workflow: the data it receives is the result the workflow returns.',
      fr: 'fin du workflow : les données reçues sont le résultat renvoyé par le workflow.',
    },
    html: {
      handles: 'L:in(any), R:out(any)',
      en: 'displays HTML in the editor; its process renders markup (often from the incoming data) and may pass data on. Also used for notes.',
      fr: "affiche du HTML dans l'éditeur ; son process génère le rendu (souvent à partir des données reçues) et peut transmettre des données. Sert aussi de note.",
    },
    entryType: {
      handles: 'R:out(any)',
      en: "the workflow's input form: its data defines the fields the user fills in; their values flow to the starter.",
      fr: "le formulaire d'entrée du workflow : ses data définissent les champs à remplir ; leurs valeurs partent vers le starter.",
    },
  });

export function isBuiltInNodeType(type: string): type is BuiltInNodeType {
  return (BUILT_IN_NODE_TYPES as readonly string[]).includes(type);
}
