import { createServer, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { ARANGO_GRAPH_NAMES } from '../../src/graph/arango/arango-graph.names';

export interface FakeArangoRequest {
  method: string;
  /** e.g. "/_db/nodius/_api/version" */
  path: string;
  /** The query string's parameters, e.g. { collection: "nodius_nodes" }. */
  query: Record<string, string>;
  body: unknown;
  authorization: string | undefined;
  /** The stream transaction the request belongs to (x-arango-trx-id), if any. */
  transactionId: string | undefined;
}

export interface FakeArangoReply {
  status: number;
  body: unknown;
}

export interface FakeArangoServer {
  /** http://127.0.0.1:<random port> */
  url: string;
  requests: FakeArangoRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that answers like ArangoDB's REST API for the few calls a test scripts
 * (version probe, database creation, errors): start-up and failure paths run the real arangojs
 * driver over a real socket without an ArangoDB server.
 */
export async function startFakeArango(
  reply: (request: FakeArangoRequest) => FakeArangoReply,
): Promise<FakeArangoServer> {
  const requests: FakeArangoRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const request: FakeArangoRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0],
        query: Object.fromEntries(new URL(req.url ?? '/', 'http://fake').searchParams),
        body: raw ? JSON.parse(raw) : undefined,
        authorization: req.headers.authorization,
        transactionId: req.headers['x-arango-trx-id'] as string | undefined,
      };
      requests.push(request);
      const { status, body } = reply(request);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request's path without its `/_db/<name>` prefix, e.g. "/_api/version". */
export function apiPathOf(request: FakeArangoRequest): string {
  return request.path.replace(/^\/_db\/[^/]+/, '');
}

/** A successful ArangoDB answer: `{ error: false, code, ...body }`. */
export function arangoOkReply(body: object = {}, status = 200): FakeArangoReply {
  return { status, body: { error: false, code: status, ...body } };
}

/** A query cursor answer holding the whole result (no further batch). */
export function arangoCursorReply(result: unknown[]): FakeArangoReply {
  return { status: 201, body: { error: false, code: 201, result, hasMore: false, cached: false, extra: {} } };
}

/** The collections a fake server holds, as a schema check sees them. */
export interface FakeArangoCollections {
  /** Name → type (2 document, 3 edge). */
  types: Map<string, number>;
  /** Answer creations with "duplicate name" (the collection exists all the same), as when another instance won the race. */
  loseCreationRace?: boolean;
}

/**
 * Answers the collection calls arangojs makes (GET /_api/collection/:name[/properties], POST /_api/collection)
 * from `collections`, creations included; null for any other request.
 */
export function fakeCollectionReply(
  collections: FakeArangoCollections,
  request: FakeArangoRequest,
): FakeArangoReply | null {
  const path = apiPathOf(request);
  const match = path.match(/^\/_api\/collection\/([^/]+)(\/properties)?$/);
  if (match) {
    const type = collections.types.get(match[1]);
    return type === undefined
      ? arangoErrorReply(404, 1203, 'collection not found')
      : arangoOkReply({ name: match[1], type });
  }
  if (path === '/_api/collection' && request.method === 'POST') {
    const { name, type } = request.body as { name: string; type: number };
    collections.types.set(name, type);
    return collections.loseCreationRace ? arangoErrorReply(409, 1207, 'duplicate name') : arangoOkReply({ name, type });
  }
  return null;
}

/**
 * A server on which every adapter finds its schema in place (3.12.4, no vector index): the version
 * probe, collections that exist (nodius_edges as an edge collection), analyzers, the search view
 * (its link is accepted when repaired), index ensures; every query answers nothing.
 */
export function preparedArangoReply(request: FakeArangoRequest): FakeArangoReply {
  const path = apiPathOf(request);
  if (path === '/_api/version') return arangoOkReply({ server: 'arango', version: '3.12.4', license: 'community' });
  const collection = path.match(/^\/_api\/collection\/([^/]+)/);
  if (collection)
    return arangoOkReply({ name: collection[1], type: collection[1] === ARANGO_GRAPH_NAMES.edges ? 3 : 2 });
  if (path === '/_api/index') {
    return request.method === 'GET'
      ? arangoOkReply({ indexes: [] })
      : arangoOkReply({ isNewlyCreated: false, ...(request.body as object) });
  }
  const named = path.match(/^\/_api\/(analyzer|view)\/([^/]+)/);
  if (named) return arangoOkReply({ name: decodeURIComponent(named[2]), type: 'arangosearch', links: {} });
  return arangoCursorReply([]);
}

/** An ArangoDB error body, as the server sends it. */
export function arangoErrorReply(status: number, errorNum: number, errorMessage: string): FakeArangoReply {
  return { status, body: { error: true, code: status, errorNum, errorMessage } };
}

/** A port nothing listens on (bound then released), for "server unreachable" tests. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => resolve(raw));
  });
}
