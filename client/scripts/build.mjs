// Builds the client package with esbuild:
//   library  → client/dist/index.mjs, core.mjs, index.css (React, react-dom and socket.io-client left to the app)
//   playground → <repo>/dist/playground/ (index.html, playground.js, playground.css, chunks/), served by the service
//   cli      → client/dist/ai-chat.cjs (the terminal chat, one file for Node)
// Usage: node client/scripts/build.mjs [--only library|playground|cli] [--playground-out DIR]
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const clientDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(clientDir, '..');
const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const only = option('--only');
const playgroundOut = path.resolve(option('--playground-out') ?? path.join(repoDir, 'dist', 'playground'));
const logLevel = 'warning';

async function library() {
  const outdir = path.join(clientDir, 'dist');
  await build({
    entryPoints: { index: path.join(clientDir, 'src/index.ts'), core: path.join(clientDir, 'src/core.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    jsx: 'automatic',
    external: ['react', 'react-dom', 'react/jsx-runtime', 'socket.io-client'],
    sourcemap: true,
    logLevel,
  });
  copyFileSync(path.join(clientDir, 'src/react/ai-chat.css'), path.join(outdir, 'index.css'));
}

async function playground() {
  rmSync(playgroundOut, { recursive: true, force: true });
  mkdirSync(playgroundOut, { recursive: true });
  await build({
    entryPoints: { playground: path.join(clientDir, 'playground/main.tsx') },
    outdir: playgroundOut,
    bundle: true,
    format: 'esm',
    // The automatic graph layout (dagre) is imported on demand: a chunk loaded only by a sheet without positions.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    minify: true,
    sourcemap: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel,
  });
  copyFileSync(path.join(clientDir, 'playground/index.html'), path.join(playgroundOut, 'index.html'));
}

async function cli() {
  await build({
    entryPoints: [path.join(clientDir, 'src/cli/ai-chat.cli.ts')],
    outfile: path.join(clientDir, 'dist/ai-chat.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel,
  });
}

const targets = { library, playground, cli };
if (only && !targets[only]) {
  console.error(`Unknown --only ${only}: one of ${Object.keys(targets).join(', ')}`);
  process.exit(1);
}
for (const [name, run] of Object.entries(targets)) if (!only || only === name) await run();
