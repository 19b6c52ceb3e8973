/// <reference types="jest" />
// (the build config compiles test/support for the benches; describe comes from jest at run time)
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { GraphDocument } from '../../src/graph/graph.types';

/**
 * The recorded provider responses and real workflow graphs live beside this repository, not in it
 * (../shared/fixtures from its root, never copied in). SHARED_FIXTURES_DIR overrides the location.
 */
function locateSharedFixtures(): string | null {
  const candidates = [
    process.env.SHARED_FIXTURES_DIR,
    path.resolve(repositoryRoot(), '..', 'shared', 'fixtures'),
  ].filter((candidate): candidate is string => Boolean(candidate));
  return candidates.find((candidate) => existsSync(path.join(candidate, 'llm', 'manifest.json'))) ?? null;
}

/** The first directory above this file (test/support/, or dist/test/support/ for the benches) holding package.json. */
function repositoryRoot(): string {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return path.resolve(__dirname, '..', '..');
}

export const SHARED_FIXTURES_DIR = locateSharedFixtures();

/** Absolute path of a file under the shared fixtures; throws when they are not available. */
export function sharedFixturePath(...segments: string[]): string {
  if (!SHARED_FIXTURES_DIR) throw new Error('Shared fixtures not found: set SHARED_FIXTURES_DIR');
  return path.join(SHARED_FIXTURES_DIR, ...segments);
}

/**
 * `describe` for suites that replay the shared fixtures. Without them the suite is reported as
 * skipped with the reason in its title, unless REQUIRE_SHARED_FIXTURES=1 (CI), where that is an error.
 */
export function describeWithSharedFixtures(name: string, body: () => void): void {
  if (SHARED_FIXTURES_DIR) {
    describe(name, body);
    return;
  }
  if (process.env.REQUIRE_SHARED_FIXTURES === '1') {
    throw new Error(`${name}: shared fixtures are required (REQUIRE_SHARED_FIXTURES=1) but were not found`);
  }
  // Skipped on purpose outside CI: the recorded LLM responses and real workflows live beside the repository
  // (../shared/fixtures), not in it; a clone without them still runs every other suite.
  describe.skip(`${name} [skipped: shared fixtures not found; set SHARED_FIXTURES_DIR]`, body);
}

/** A real workflow graph of the shared fixtures (workflows/graphs), without its provenance blocks. */
export function loadWorkflowFixture(fileName: string): GraphDocument {
  const raw = JSON.parse(readFileSync(sharedFixturePath('workflows', 'graphs', fileName), 'utf8')) as GraphDocument;
  return { graph: raw.graph, nodes: raw.nodes, edges: raw.edges, nodeConfigs: raw.nodeConfigs };
}
