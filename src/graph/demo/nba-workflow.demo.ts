import { GraphDocument, NodeHandles } from '../graph.types';

/**
 * The demo graph: an NBA stats workflow, 9 nodes and 6 edges on two sheets,
 * 4 custom node types, and one disconnected note for edge cases. Loaded by `npm run seed` and on the
 * first start of an empty store (SEED_DEMO=false turns that off).
 *
 *   entry-form ──▶ root ──▶ fetch-api ──(success)──▶ filter-active ──▶ display-html ──▶ return
 *                               └──(error)──▶ error-handler
 *   (sheet "data-processing": sort-stats, disconnected-note)
 */

export const DEMO_WORKSPACE = 'default';
export const DEMO_GRAPH_KEY = 'nba-workflow';

const inputOnly: NodeHandles = { L: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] } };
const outputOnly: NodeHandles = { R: { position: 'fix', point: [{ id: 'R-0', type: 'out', accept: 'any' }] } };
const passThrough: NodeHandles = { ...inputOnly, ...outputOnly };

const fetchApiProcess = `// Fetch the active NBA players from the stats API; errors go to the second output.
const season = incoming[0]?.data?.season ?? '2024-25';
try {
  const response = await fetch(\`https://api.nba-stats.example/v1/players?season=\${season}&per_page=100\`, {
    headers: { Accept: 'application/json', Authorization: \`Bearer \${global.env.NBA_API_KEY}\` },
  });
  if (!response.ok) throw new Error(\`NBA API answered \${response.status}\`);
  const body = await response.json();
  next(0, { players: body.data, season });
} catch (error) {
  next(1, { error: String(error), season });
}`;

const filterActiveProcess = `// Keep only players who are active this season and played at least 10 games.
const players = incoming[0].data.players;
const active = players.filter((player) => player.is_active && player.games_played >= node.data.minGames);
next(0, { players: active, count: active.length });`;

const displayHtmlProcess = `// Render the active players as a table.
const rows = incoming[0].data.players
  .map((player) => \`<tr><td>\${player.first_name} \${player.last_name}</td><td>\${player.team.abbreviation}</td><td>\${player.pts}</td></tr>\`)
  .join('');
render(\`<table class="nba-players"><thead><tr><th>Player</th><th>Team</th><th>PTS</th></tr></thead><tbody>\${rows}</tbody></table>\`);
next(0, incoming[0].data);`;

const errorHandlerProcess = `// Log the failure with its context so the on-call can replay the request.
console.error('[nba-workflow] fetch failed', incoming[0].data.error, { season: incoming[0].data.season });
next(0, { logged: true });`;

const sortStatsProcess = `// Sort players by points per game, then by assists, and keep the top N.
const players = [...incoming[0].data.players];
players.sort((a, b) => b.pts - a.pts || b.ast - a.ast);
next(0, { players: players.slice(0, node.data.top) });`;

export const nbaWorkflowDemo: GraphDocument = {
  graph: {
    _key: DEMO_GRAPH_KEY,
    workspace: DEMO_WORKSPACE,
    name: 'NBA stats workflow',
    description: 'Fetches NBA player stats from an API, keeps the active players and displays them as an HTML table.',
    category: 'demo',
    version: 1,
    sheetsList: { '0': 'main', '1': 'data-processing' },
    metadata: { author: 'demo' },
    createdTime: 1709123456000,
    lastUpdatedTime: 1709123456000,
  },
  nodes: [
    {
      _key: 'entry-form',
      graphKey: DEMO_GRAPH_KEY,
      type: 'entryType',
      sheet: '0',
      posX: 0,
      posY: 100,
      size: { width: 220, height: 120 },
      data: { fields: [{ name: 'season', type: 'string', default: '2024-25' }] },
      handles: outputOnly,
    },
    {
      _key: 'root',
      graphKey: DEMO_GRAPH_KEY,
      type: 'starter',
      sheet: '0',
      posX: 300,
      posY: 100,
      size: { width: 120, height: 60 },
      process: '',
      handles: passThrough,
    },
    {
      _key: 'fetch-api',
      graphKey: DEMO_GRAPH_KEY,
      type: 'api-call',
      sheet: '0',
      posX: 520,
      posY: 100,
      size: { width: 240, height: 140 },
      process: fetchApiProcess,
      data: { url: 'https://api.nba-stats.example/v1/players', method: 'GET', timeoutMs: 5000 },
      handles: {
        L: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] },
        R: {
          position: 'separate',
          point: [
            { id: 'R-0', type: 'out', accept: 'object', display: 'success' },
            { id: 'R-1', type: 'out', accept: 'error', display: 'error' },
          ],
        },
      },
    },
    {
      _key: 'filter-active',
      graphKey: DEMO_GRAPH_KEY,
      type: 'filter',
      sheet: '0',
      posX: 820,
      posY: 60,
      size: { width: 220, height: 120 },
      process: filterActiveProcess,
      data: { minGames: 10 },
      handles: passThrough,
    },
    {
      _key: 'display-html',
      graphKey: DEMO_GRAPH_KEY,
      type: 'html',
      sheet: '0',
      posX: 1100,
      posY: 60,
      size: { width: 320, height: 240, dynamic: true },
      process: displayHtmlProcess,
      handles: passThrough,
    },
    {
      _key: 'return',
      graphKey: DEMO_GRAPH_KEY,
      type: 'return',
      sheet: '0',
      posX: 1480,
      posY: 60,
      size: { width: 120, height: 60 },
      handles: inputOnly,
    },
    {
      _key: 'error-handler',
      graphKey: DEMO_GRAPH_KEY,
      type: 'log-node',
      sheet: '0',
      posX: 820,
      posY: 260,
      size: { width: 220, height: 100 },
      process: errorHandlerProcess,
      data: { level: 'error' },
      handles: passThrough,
    },
    {
      _key: 'sort-stats',
      graphKey: DEMO_GRAPH_KEY,
      type: 'transform',
      sheet: '1',
      posX: 200,
      posY: 100,
      size: { width: 220, height: 120 },
      process: sortStatsProcess,
      data: { top: 25, sortBy: ['pts', 'ast'] },
      handles: passThrough,
    },
    {
      _key: 'disconnected-note',
      graphKey: DEMO_GRAPH_KEY,
      type: 'html',
      sheet: '1',
      posX: 600,
      posY: 100,
      size: { width: 260, height: 100 },
      process: '',
      data: { note: 'Draft: compute team averages here once sort-stats is wired to the main sheet.' },
    },
  ],
  edges: [
    edge('entry-form-to-root', 'entry-form', 'R-0', 'root', 'L-0'),
    edge('root-to-fetch-api', 'root', 'R-0', 'fetch-api', 'L-0'),
    edge('fetch-api-to-filter-active', 'fetch-api', 'R-0', 'filter-active', 'L-0', 'success'),
    edge('fetch-api-to-error-handler', 'fetch-api', 'R-1', 'error-handler', 'L-0', 'error'),
    edge('filter-active-to-display-html', 'filter-active', 'R-0', 'display-html', 'L-0'),
    edge('display-html-to-return', 'display-html', 'R-0', 'return', 'L-0'),
  ],
  nodeConfigs: [
    {
      _key: 'api-call',
      workspace: DEMO_WORKSPACE,
      displayName: 'API Call',
      description: 'Calls an HTTP API and outputs the JSON response; failures go to the error output.',
      category: 'network',
      icon: 'globe',
      node: {
        handles: {
          L: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] },
          R: {
            position: 'separate',
            point: [
              { id: 'R-0', type: 'out', accept: 'object' },
              { id: 'R-1', type: 'out', accept: 'error' },
            ],
          },
        },
        size: { width: 240, height: 140 },
      },
    },
    {
      _key: 'filter',
      workspace: DEMO_WORKSPACE,
      displayName: 'Filter',
      description: 'Keeps the items of its input that satisfy a condition.',
      category: 'data',
      icon: 'filter',
      node: { handles: passThrough },
    },
    {
      _key: 'transform',
      workspace: DEMO_WORKSPACE,
      displayName: 'Transform',
      description: 'Maps, sorts or reshapes its input data.',
      category: 'data',
      icon: 'shuffle',
      node: { handles: passThrough },
    },
    {
      _key: 'log-node',
      workspace: DEMO_WORKSPACE,
      displayName: 'Log Node',
      description: 'Writes its input to the logs, for debugging and error reporting.',
      category: 'utility',
      icon: 'file-text',
      node: { handles: passThrough },
    },
  ],
};

function edge(key: string, source: string, sourceHandle: string, target: string, targetHandle: string, label?: string) {
  return {
    _key: key,
    graphKey: DEMO_GRAPH_KEY,
    sheet: '0',
    source,
    sourceHandle,
    target,
    targetHandle,
    ...(label ? { label } : {}),
  };
}
