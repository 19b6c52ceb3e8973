/** The error codes of docs/protocol.md §4, shared by REST and Socket.IO. */
export type ErrorCode =
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
  | 'server_error'
  | 'auth_error'
  | 'timeout'
  | 'network'
  | 'content_filter'
  | 'context_length'
  | 'budget_exceeded'
  | 'provider_not_configured'
  | 'store_unavailable'
  | 'internal';

/** HTTP status answered for each code. */
export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  read_only_store: 409,
  thread_busy: 409,
  rate_limit: 429,
  rate_limited: 429,
  server_error: 502,
  auth_error: 502,
  timeout: 504,
  network: 502,
  content_filter: 422,
  context_length: 422,
  budget_exceeded: 402,
  provider_not_configured: 503,
  store_unavailable: 503,
  internal: 500,
};

/** Codes a client may retry as is, plus a store that is momentarily unreachable. */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'thread_busy',
  'rate_limit',
  'rate_limited',
  'server_error',
  'timeout',
  'network',
  'store_unavailable',
]);
