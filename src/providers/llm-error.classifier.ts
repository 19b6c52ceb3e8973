import {
  APIConnectionError as AnthropicConnectionError,
  APIConnectionTimeoutError as AnthropicConnectionTimeoutError,
  APIError as AnthropicApiError,
} from '@anthropic-ai/sdk';
import {
  APIConnectionError as OpenAiConnectionError,
  APIConnectionTimeoutError as OpenAiConnectionTimeoutError,
  APIError as OpenAiApiError,
} from 'openai';
import type { Locale } from '../config/app-config';
import { AppError } from '../errors/app-error';
import { ErrorCode, RETRYABLE_CODES } from '../errors/error-code';
import type { ClassifiedLlmError } from './classified-llm-error';
import { IncompleteStreamError } from './incomplete-stream.error';
import { MalformedStreamError } from './malformed-stream.error';
import { StreamIdleTimeoutError } from './stream-idle-timeout.error';
import { LLM_ERROR_MESSAGES, LlmErrorCode } from '../errors/llm-error.messages';
import { LlmProviderError } from './llm-provider.error';

/** What the upstream said about the failure, whichever SDK or stream it came through. */
interface UpstreamDetails {
  status: number | null;
  /** error.type ("rate_limit_error", "invalid_request_error", "tokens", ...) */
  type: string;
  /** error.code ("context_length_exceeded", "invalid_api_key", ...) */
  code: string;
  /** error.message, lower-cased, for the few body-level patterns */
  apiMessage: string;
}

const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const CONTEXT_LENGTH_CODES = new Set(['context_length_exceeded', 'string_above_max_length', 'request_too_large']);
const CONTENT_FILTER_CODES = new Set(['content_filter', 'content_policy_violation', 'content_filtered']);
const AUTH_TYPES = new Set(['authentication_error', 'permission_error', 'invalid_api_key', 'permission_denied']);
const SERVER_TYPES = new Set(['overloaded_error', 'api_error', 'server_error', 'service_unavailable']);
const RATE_LIMIT_TYPES = new Set(['rate_limit_error', 'rate_limit_exceeded', 'requests', 'tokens']);

const CONTEXT_LENGTH_MESSAGE =
  /maximum context length|context length|context window|prompt is too long|too many tokens|reduce the length/;
const CONTENT_FILTER_MESSAGE = /content[ _-]?filter|flagged|content management policy|safety system/;

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function upstreamDetails(error: unknown): UpstreamDetails {
  const record = asRecord(error) ?? {};
  // openai: APIError.error is the inner `error` object; anthropic: the whole `{type:"error", error:{...}}` body.
  const body = asRecord(record.error);
  const inner = asRecord(body?.error) ?? body ?? {};
  const statusFromBody = typeof inner.status_code === 'number' ? inner.status_code : null;
  const status =
    typeof record.status === 'number'
      ? record.status
      : typeof record.statusCode === 'number'
        ? record.statusCode
        : statusFromBody;
  return {
    status,
    type: (str(inner.type) || str(record.type)).toLowerCase(),
    code: (
      str(inner.code) || (typeof record.code === 'string' && !/^E[A-Z]|^UND_/.test(record.code) ? record.code : '')
    ).toLowerCase(),
    apiMessage: str(inner.message).toLowerCase(),
  };
}

/** `code`, `name` and `message` of the error and its causes (fetch wraps socket errors). */
function causeChain(error: unknown): Array<{ code: string; name: string; message: string }> {
  const chain: Array<{ code: string; name: string; message: string }> = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const record = asRecord(current);
    if (!record) {
      chain.push({ code: '', name: '', message: String(current) });
      break;
    }
    chain.push({ code: str(record.code), name: str(record.name), message: str(record.message) });
    current = record.cause;
  }
  return chain;
}

function providerOf(error: unknown, hint: string | undefined, message: string): string {
  if (hint) return hint;
  const known = asRecord(error)?.provider;
  if (typeof known === 'string' && known) return known;
  if (error instanceof AnthropicApiError) return 'anthropic';
  if (message.includes('deepseek')) return 'deepseek';
  if (error instanceof OpenAiApiError) return 'openai';
  if (message.includes('anthropic')) return 'anthropic';
  return 'unknown';
}

function headerValue(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = asRecord(headers);
  if (!record) return null;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key ? record[key] : undefined;
  return typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : null;
}

/**
 * The delay the upstream asked for: `retry-after-ms` (milliseconds), else `retry-after` in seconds
 * or as an HTTP date. Null when absent or unreadable.
 */
export function retryAfterMsFromError(error: unknown, now: number = Date.now()): number | null {
  const headers = asRecord(error)?.headers;
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headerValue(headers, 'retry-after');
  if (after === null || after.trim() === '') return null;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function decide(
  error: unknown,
  details: UpstreamDetails,
  chain: ReturnType<typeof causeChain>,
): { code: LlmErrorCode; retryable?: boolean } {
  // 1. SDK classes that carry no status: connection failures and timeouts.
  if (error instanceof OpenAiConnectionTimeoutError || error instanceof AnthropicConnectionTimeoutError) {
    return { code: 'timeout' };
  }
  if (error instanceof IncompleteStreamError) return { code: 'network' };
  if (error instanceof MalformedStreamError) return { code: 'server_error' };
  if (error instanceof StreamIdleTimeoutError) return { code: 'timeout' };
  const codes = chain.map((link) => link.code);
  if (error instanceof OpenAiConnectionError || error instanceof AnthropicConnectionError) {
    return { code: codes.some((code) => TIMEOUT_CODES.has(code)) ? 'timeout' : 'network' };
  }

  // 2. The error body's own code/type, where it is more precise than the status.
  const { status, type, code, apiMessage } = details;
  if (CONTEXT_LENGTH_CODES.has(code) || CONTEXT_LENGTH_CODES.has(type)) return { code: 'context_length' };
  if (CONTENT_FILTER_CODES.has(code) || CONTENT_FILTER_CODES.has(type)) return { code: 'content_filter' };
  // Credits used up (OpenAI sends it as a 429): not a rate limit, which the protocol makes retryable; an admin must act.
  if (code === 'insufficient_quota' || type === 'insufficient_quota') return { code: 'budget_exceeded' };
  if (AUTH_TYPES.has(type) || AUTH_TYPES.has(code)) return { code: 'auth_error' };
  if (SERVER_TYPES.has(type)) return { code: 'server_error' };
  if (type === 'rate_limit_error' || code === 'rate_limit_exceeded') return { code: 'rate_limit' };

  // 3. HTTP status.
  if (status !== null) {
    if (status === 429) return { code: 'rate_limit' };
    if (status === 401 || status === 403) return { code: 'auth_error' };
    if (status === 408) return { code: 'timeout' };
    if (status === 413) return { code: 'context_length' };
    if (status >= 500) return { code: 'server_error' };
    if (status >= 400) {
      if (CONTEXT_LENGTH_MESSAGE.test(apiMessage)) return { code: 'context_length' };
      if (CONTENT_FILTER_MESSAGE.test(apiMessage)) return { code: 'content_filter' };
      return { code: 'internal' };
    }
  }
  if (RATE_LIMIT_TYPES.has(type)) return { code: 'rate_limit' };

  // 4. Socket-level codes anywhere in the cause chain.
  if (codes.some((value) => TIMEOUT_CODES.has(value))) return { code: 'timeout' };
  if (codes.some((value) => NETWORK_CODES.has(value))) return { code: 'network' };

  // 5. Message patterns, last.
  const text =
    chain
      .map((link) => `${link.name} ${link.message}`)
      .join(' | ')
      .toLowerCase() + ` | ${apiMessage}`;
  if (/too many requests|rate limit/.test(text)) return { code: 'rate_limit' };
  if (CONTEXT_LENGTH_MESSAGE.test(text)) return { code: 'context_length' };
  if (CONTENT_FILTER_MESSAGE.test(text)) return { code: 'content_filter' };
  if (/invalid api key|incorrect api key|invalid x-api-key|unauthorized|authentication/.test(text))
    return { code: 'auth_error' };
  if (/timed? ?out|timeout/.test(text)) return { code: 'timeout' };
  if (/econnrefused|enotfound|econnreset|socket hang up|fetch failed|terminated|other side closed|network/.test(text)) {
    return { code: 'network' };
  }
  if (/overloaded|service unavailable|bad gateway|internal server error/.test(text)) return { code: 'server_error' };
  return { code: 'internal' };
}

/**
 * Classifies any error an LLM call can throw into a protocol error code:
 * SDK error classes and HTTP status first, the body's error type/code next, socket error codes,
 * message patterns last. Already-classified AppErrors (LlmProviderError, TokenLimitError) keep
 * their code. Callers check isAbortError() first: an abort is not a failure.
 */
export function classifyLLMError(error: unknown, locale: Locale = 'en', providerHint?: string): ClassifiedLlmError {
  const chain = causeChain(error);
  const details = upstreamDetails(error);
  const provider = providerOf(
    error,
    providerHint,
    chain
      .map((link) => link.message)
      .join(' ')
      .toLowerCase(),
  );
  if (error instanceof AppError) {
    const known = (LLM_ERROR_MESSAGES as Partial<Record<ErrorCode, Record<Locale, string>>>)[error.code];
    const upstream = asRecord(error)?.upstreamStatus;
    const retryAfter = asRecord(error)?.retryAfterMs;
    return {
      code: error.code,
      retryable: error.retryable,
      statusCode: typeof upstream === 'number' ? upstream : null,
      provider,
      userMessage: known ? known[locale] : error.message,
      retryAfterMs: typeof retryAfter === 'number' ? retryAfter : null,
    };
  }
  const decision = decide(error, details, chain);
  return {
    code: decision.code,
    retryable: decision.retryable ?? RETRYABLE_CODES.has(decision.code),
    statusCode: details.status,
    provider,
    userMessage: LLM_ERROR_MESSAGES[decision.code][locale],
    retryAfterMs: retryAfterMsFromError(error),
  };
}

/**
 * classifyLLMError bound to the configured locale (AI_LOCALE), as an injectable for the agent and
 * the gateway. Pure: no Nest decorators; ProvidersModule constructs it.
 */
export class LlmErrorClassifier {
  constructor(readonly locale: Locale = 'en') {}

  classify(error: unknown, provider?: string): ClassifiedLlmError {
    return classifyLLMError(error, this.locale, provider);
  }

  /** The classified error as an AppError (LlmProviderError) the filters map to the protocol's shape. */
  toAppError(error: unknown, provider?: string): LlmProviderError {
    if (error instanceof LlmProviderError) return error;
    return new LlmProviderError(this.classify(error, provider), error);
  }
}
