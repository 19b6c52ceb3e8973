import { ErrorBody } from './error-body';
import { ErrorCode } from './error-code';

/**
 * What body-parser (and raw-body under it) fails with: an http-errors object with a `status` and,
 * for most causes, a `type`. body-parser wraps a decompression failure (zlib) in a 400 without a type.
 */
interface BodyReadError {
  status?: unknown;
  type?: unknown;
  message?: unknown;
  charset?: unknown;
  encoding?: unknown;
}

/** Causes that are the client's, by body-parser / raw-body `type`. */
const BY_TYPE: Record<string, (error: BodyReadError) => ErrorBody> = {
  'entity.too.large': () => ({ statusCode: 413, code: 'payload_too_large', message: 'Request body is too large' }),
  'entity.parse.failed': () => ({ statusCode: 400, code: 'bad_request', message: 'Malformed JSON body' }),
  'charset.unsupported': (error) => ({
    statusCode: 415,
    code: 'unsupported_media_type',
    message: `Unsupported charset "${String(error.charset ?? '')}": send JSON in UTF-8`,
  }),
  'encoding.unsupported': (error) => ({
    statusCode: 415,
    code: 'unsupported_media_type',
    message: `Unsupported Content-Encoding "${String(error.encoding ?? '')}": send identity, gzip, deflate or br`,
  }),
  'request.size.invalid': () => ({
    statusCode: 400,
    code: 'bad_request',
    message: 'The body does not match its Content-Length',
  }),
  'request.aborted': () => ({
    statusCode: 400,
    code: 'bad_request',
    message: 'The client closed the connection before the whole body was sent',
  }),
};

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  403: 'forbidden',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** Types that mean the client went away: nobody reads the answer, and it is not the service's failure to log. */
const CLIENT_GONE_TYPES: ReadonlySet<string> = new Set(['request.aborted']);

/**
 * A body-parser / raw-body error recognised by its `type`, in the error shape (ErrorBody); null for
 * anything else (raw-body's `stream.*` types are programming errors: left to the caller, which logs
 * them as `internal`). Safe on any thrown value: only those types are matched.
 */
export function typedBodyErrorBody(error: unknown): ErrorBody | null {
  if (typeof error !== 'object' || error === null) return null;
  const readError = error as BodyReadError;
  if (typeof readError.type !== 'string') return null;
  const mapped = BY_TYPE[readError.type];
  if (mapped) return mapped(readError);
  // Any other `entity.*` refusal (a `verify` hook's 403...) keeps its status.
  if (readError.type.startsWith('entity.') && typeof readError.status === 'number') {
    return {
      statusCode: readError.status,
      code: CODE_BY_STATUS[readError.status] ?? 'bad_request',
      message: String(readError.message),
    };
  }
  return null;
}

/**
 * Every failure of reading a request body that a client can cause, in the error shape (ErrorBody), so
 * none of them becomes a 500 with an error log; null for the service's own
 * failures. Only for errors the body parser raised: an untyped 400 there is a decompression failure.
 */
export function bodyReadErrorBody(error: unknown): ErrorBody | null {
  const typed = typedBodyErrorBody(error);
  if (typed) return typed;
  if (typeof error !== 'object' || error === null || typeof (error as BodyReadError).type === 'string') return null;
  // body-parser wraps a zlib failure (a body that is not the gzip / deflate / br data its Content-Encoding says) in a 400.
  if ((error as BodyReadError).status !== 400) return null;
  return { statusCode: 400, code: 'bad_request', message: 'The body could not be decoded with its Content-Encoding' };
}

/** True when reading the body failed because the client closed the connection. */
export function isClientGoneError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && CLIENT_GONE_TYPES.has(String((error as BodyReadError).type));
}
