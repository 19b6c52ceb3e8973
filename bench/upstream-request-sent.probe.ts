import { subscribe } from 'node:diagnostics_channel';

/**
 * Calls `onSent` when an HTTP request made with fetch (Node's bundled undici: the openai SDK's
 * transport) has written its whole body to the socket: the last moment of a request's cost on the
 * process that sends it. Through undici's diagnostics channel, so the code under measurement is not
 * touched.
 */
export function onUpstreamRequestSent(onSent: () => void): void {
  subscribe('undici:request:bodySent', () => onSent());
}
