import { maskPersonalData } from './personal-data.masker';

/** Longest part of an upstream's error message a log keeps. */
export const UPSTREAM_ERROR_MAX_CHARS = 300;

/** A quoted run this long is taken for an echo of the request (the user's text), not for a name. */
const QUOTED_ECHO = /(["'`\u201c])([^"'`\u201d\n]{24,})(["'`\u201d])/g;

/**
 * An upstream's error message as the logs may keep it: providers echo parts of
 * the request in their error bodies (the user's text, an e-mail address in it, sometimes the key). The
 * given secrets are cut out, long quoted runs (an echoed message) are replaced by their length, and
 * the personal-data masking of traces is applied to the rest; then it is cut to 300 characters.
 */
export function upstreamErrorText(error: unknown, secrets: readonly string[] = []): string {
  const raw = error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);
  const withoutSecrets = secrets.reduce(
    (scrubbed, secret) => (secret.length > 0 ? scrubbed.split(secret).join('[redacted]') : scrubbed),
    raw,
  );
  const withoutEchoes = withoutSecrets.replace(
    QUOTED_ECHO,
    (_match, open: string, quoted: string, close: string) => `${open}[${quoted.length} characters]${close}`,
  );
  return maskPersonalData(withoutEchoes).slice(0, UPSTREAM_ERROR_MAX_CHARS);
}

/** `Name: text` of an upstream failure, masked as upstreamErrorText. */
export function describeUpstreamError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${upstreamErrorText(error)}` : upstreamErrorText(error);
}
