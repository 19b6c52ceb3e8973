import { readFileSync } from 'node:fs';
import { sharedFixturePath } from '../shared-fixtures';

/** One entry of ../shared/fixtures/llm/manifest.json. */
export interface LlmFixtureManifestEntry {
  file: string;
  stream: boolean;
  status: number;
  content_type: string;
  endpoint: string;
  expected: any;
}

let manifest: LlmFixtureManifestEntry[] | null = null;

export function llmFixtureManifest(): LlmFixtureManifestEntry[] {
  manifest ??= (
    JSON.parse(readFileSync(sharedFixturePath('llm', 'manifest.json'), 'utf8')) as { files: LlmFixtureManifestEntry[] }
  ).files;
  return manifest;
}

export interface FixtureResponse {
  status: number;
  contentType: string;
  /** SSE: one string per event (exact bytes, "\n\n" kept); JSON: the whole body. */
  chunks: string[];
  stream: boolean;
}

/** A recorded response as the server replays it: the manifest's status and content type, the file's bytes. */
export function loadFixtureResponse(file: string): FixtureResponse {
  const entry = llmFixtureManifest().find((candidate) => candidate.file === file);
  if (!entry) throw new Error(`scripted-llm-server: fixture "${file}" is not in the llm manifest`);
  const body = readFileSync(sharedFixturePath('llm', file), 'utf8');
  const stream = entry.content_type.startsWith('text/event-stream');
  return {
    status: entry.status,
    contentType: entry.content_type,
    chunks: stream ? body.split(/(?<=\n\n)/) : [body],
    stream,
  };
}
