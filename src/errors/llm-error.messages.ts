import type { Locale } from '../config/app-config';
import { ErrorCode } from './error-code';

/** Codes the LLM error classifier produces. */
export type LlmErrorCode = Extract<
  ErrorCode,
  | 'rate_limit'
  | 'server_error'
  | 'auth_error'
  | 'timeout'
  | 'network'
  | 'content_filter'
  | 'context_length'
  | 'budget_exceeded'
  | 'provider_not_configured'
  | 'internal'
>;

/** What the user reads in ai:error / the HTTP error body for an LLM failure. */
export const LLM_ERROR_MESSAGES: Record<LlmErrorCode, Record<Locale, string>> = {
  rate_limit: {
    en: 'The AI service is receiving too many requests right now. Please try again in a moment.',
    fr: 'Le service IA est temporairement surchargé (trop de requêtes). Réessayez dans un instant.',
  },
  server_error: {
    en: 'The AI service is temporarily unavailable. Please try again in a few moments.',
    fr: 'Le service IA est temporairement indisponible. Réessayez dans quelques instants.',
  },
  auth_error: {
    en: 'The AI service rejected our credentials. An administrator needs to check the API key.',
    fr: "Erreur d'authentification auprès du service IA. Un administrateur doit vérifier la clé API.",
  },
  timeout: {
    en: 'The AI request timed out. Please try again.',
    fr: 'La requête IA a expiré. Réessayez.',
  },
  network: {
    en: 'The AI service could not be reached. Please try again.',
    fr: 'Impossible de contacter le service IA. Réessayez.',
  },
  content_filter: {
    en: "The message was blocked by the AI provider's content filter. Please rephrase it.",
    fr: 'Le message a été filtré par le fournisseur IA. Reformulez-le.',
  },
  context_length: {
    en: 'The conversation is too long for the model. Start a new conversation or ask a shorter question.',
    fr: 'La conversation est trop longue pour le modèle. Commencez une nouvelle conversation ou posez une question plus courte.',
  },
  budget_exceeded: {
    en: 'The AI usage budget has been reached.',
    fr: "Le budget d'utilisation de l'IA est atteint.",
  },
  provider_not_configured: {
    en: 'No AI model is configured on this service.',
    fr: "Aucun modèle IA n'est configuré sur ce service.",
  },
  internal: {
    en: 'An unexpected error occurred while contacting the AI service.',
    fr: 'Une erreur inattendue est survenue avec le service IA.',
  },
};
