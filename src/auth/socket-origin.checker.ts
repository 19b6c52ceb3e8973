/**
 * Whether a browser page of `origin` may open the Socket.IO namespace. A WebSocket handshake is not under CORS: a page of any site can open one to the service
 * and the browser sends its cookies and the user's network position along, so the origin is checked
 * here, whatever AUTH_MODE says (with AUTH_MODE=none a foreign page would chat as the anonymous admin).
 *
 * Allowed: no `Origin` header (not a browser: the Node client, curl; a same-origin polling request),
 * an origin of SOCKET_CORS_ORIGINS (`*`: any), or the service's own origin, read from the `Host`
 * header: its host and port, or its host alone when a gateway passed a `Host` without port (nginx's
 * `$host`). `Origin: null` (a sandboxed frame, a file) is refused. Answers why not, or null.
 */
export function socketOriginProblem(
  origin: string | undefined,
  host: string | undefined,
  allowedOrigins: readonly string[],
): string | null {
  if (origin === undefined) return null;
  if (allowedOrigins.includes('*') || allowedOrigins.includes(origin)) return null;
  if (host !== undefined && isOwnOrigin(origin, host)) return null;
  return `The origin ${JSON.stringify(origin.slice(0, 200))} may not open the socket: add it to SOCKET_CORS_ORIGINS`;
}

function isOwnOrigin(origin: string, host: string): boolean {
  let url: URL;
  let own: URL;
  try {
    url = new URL(origin);
    own = new URL(`http://${host}`);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.hostname !== own.hostname) return false;
  // A Host without port (a gateway's): the host decides. With one: the same port, the scheme's default included.
  if (!hasExplicitPort(host)) return true;
  return effectivePort(url) === own.port || (own.port === '' && effectivePort(url) === '80');
}

function hasExplicitPort(host: string): boolean {
  return /:\d+$/.test(host);
}

function effectivePort(url: URL): string {
  if (url.port !== '') return url.port;
  return url.protocol === 'https:' ? '443' : '80';
}
