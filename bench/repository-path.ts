import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root: the first directory above this file (bench/ or dist/bench/) holding package.json. */
export function repositoryRoot(): string {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error('Cannot find the repository root (package.json)');
}

/** A path inside the repository. */
export function repositoryPath(...segments: string[]): string {
  return path.join(repositoryRoot(), ...segments);
}
