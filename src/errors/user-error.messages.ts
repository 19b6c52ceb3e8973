import type { Locale } from '../config/app-config';
import type { ErrorCode } from './error-code';

/** Codes raised by the service itself (not by the LLM error classifier) that reach a socket client. */
export type ServiceErrorCode = Extract<
  ErrorCode,
  | 'bad_request'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'read_only_store'
  | 'thread_busy'
  | 'rate_limit'
  | 'rate_limited'
  | 'budget_exceeded'
  | 'store_unavailable'
  | 'internal'
>;

/**
 * The `error` text of `ai:error` for the service's own codes, in the AI_LOCALE languages.
 * LLM failures use the classifier's messages instead (LLM_ERROR_MESSAGES). Texts are for the end
 * user: short, no internals; `bad_request` and `payload_too_large` get the technical detail appended.
 */
export const USER_ERROR_MESSAGES: Record<ServiceErrorCode, Record<Locale, string>> = {
  bad_request: {
    en: 'The request is invalid.',
    fr: 'La requête est invalide.',
  },
  payload_too_large: {
    en: 'The message is too long.',
    fr: 'Le message est trop long.',
  },
  // HTTP only (a body that is not UTF-8 JSON); listed so that every code has its text.
  unsupported_media_type: {
    en: 'The request is not in a format the assistant reads.',
    fr: "La requête n'est pas dans un format que l'assistant sait lire.",
  },
  unauthorized: {
    en: 'Your session has expired or is invalid. Please sign in again.',
    fr: 'Votre session a expiré ou est invalide. Reconnectez-vous.',
  },
  forbidden: {
    en: 'You are not allowed to do this.',
    fr: "Vous n'êtes pas autorisé à effectuer cette action.",
  },
  not_found: {
    en: 'This conversation or graph was not found.',
    fr: 'Cette conversation ou ce graphe est introuvable.',
  },
  conflict: {
    en: 'This conversation has changed: there is no pending proposal to answer.',
    fr: "Cette conversation a changé : il n'y a plus de proposition en attente.",
  },
  read_only_store: {
    en: 'This graph cannot be changed by the assistant.',
    fr: "Ce graphe ne peut pas être modifié par l'assistant.",
  },
  thread_busy: {
    en: 'The assistant is already answering in this conversation. Please wait for it to finish and try again.',
    fr: "L'assistant répond déjà dans cette conversation. Attendez la fin de sa réponse et réessayez.",
  },
  rate_limit: {
    en: 'You are sending too many requests. Please wait a moment and try again.',
    fr: 'Vous envoyez trop de requêtes. Patientez un instant et réessayez.',
  },
  rate_limited: {
    en: 'Too many messages are already waiting in this conversation. Please wait for the assistant to answer them.',
    fr: "Trop de messages attendent déjà dans cette conversation. Attendez que l'assistant y réponde.",
  },
  budget_exceeded: {
    en: 'The AI usage budget has been reached.',
    fr: "Le budget d'utilisation de l'IA est atteint.",
  },
  store_unavailable: {
    en: 'The conversation storage is temporarily unavailable. Please try again in a few moments.',
    fr: 'Le stockage des conversations est temporairement indisponible. Réessayez dans quelques instants.',
  },
  internal: {
    en: 'An unexpected error occurred.',
    fr: 'Une erreur inattendue est survenue.',
  },
};
