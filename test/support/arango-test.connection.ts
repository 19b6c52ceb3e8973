import { loadAppConfig } from '../../src/config/load-app-config';

/**
 * The ArangoDB the integration suites may use: ARANGO_URL, ARANGO_USER and ARANGO_PASSWORD from the
 * environment, validated as the service validates them; null when ARANGO_URL is not set (the suites
 * then report themselves as skipped).
 */
export function arangoTestConnection(): { url: string; user: string; password: string | undefined } | null {
  const url = process.env.ARANGO_URL;
  if (!url) return null;
  const config = loadAppConfig({
    NODE_ENV: 'test',
    STORE: 'arango',
    ARANGO_URL: url,
    ARANGO_USER: process.env.ARANGO_USER,
    ARANGO_PASSWORD: process.env.ARANGO_PASSWORD,
  });
  if (config.store.kind !== 'arango') throw new Error('STORE=arango expected');
  const { user, password } = config.store;
  return { url: config.store.url, user, password };
}
