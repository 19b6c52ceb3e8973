import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { LocalEmbeddingRecipe } from './local-embedding.recipe';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { SifSentenceEncoder } from './sif-sentence.encoder';
import { WordVectors } from './word-vectors';
import { SynchronousEmbeddingProvider } from './synchronous-embedding.provider';

/** The word-vector table shipped in the repository (config/word-vectors/README.md says where it comes from). */
export const WORD_VECTORS_FILE_NAME = 'en-25k-100d.wvec';
const WORD_VECTOR_DIMENSION = 100;
/** Share of the cosine that comes from meaning (the word vectors); the rest from the hashed features. */
const SEMANTIC_SHARE = 0.5;

/**
 * The default embedding: no network, no key, no model download, and it knows some
 * meaning. Each vector is two unit parts side by side:
 *  - 100 dimensions of meaning: the SIF-weighted average of static English word vectors (GloVe,
 *    distilled to the 25,000 most frequent words and the domain lexicon's; SifSentenceEncoder), so
 *    "picture" is near "image" and "staff" near "employees";
 *  - the 512 dimensions of the lexical hashed features (LocalHashEmbeddingProvider), for identifiers,
 *    service names and typos that no dictionary has;
 * each scaled by the square root of its share, so the cosine of two vectors is half the cosine of
 * their meanings plus half that of their words (when both texts have known words).
 *
 * The table is read on the first text embedded (about 3 MB, ~20 ms), not at start. Deterministic: the
 * model name carries a version; any change to the table, the encoder, the hashed part or the shares
 * needs a new one, so vectors of an older version are never compared with new ones.
 */
export class LocalWordsEmbeddingProvider extends SynchronousEmbeddingProvider {
  static readonly VERSION = 1;
  static readonly DIMENSION = WORD_VECTOR_DIMENSION + LocalHashEmbeddingProvider.DEFAULT_DIMENSION;
  static readonly MODEL_NAME = `local-words-v${LocalWordsEmbeddingProvider.VERSION}-${LocalWordsEmbeddingProvider.DIMENSION}`;

  readonly modelName = LocalWordsEmbeddingProvider.MODEL_NAME;
  readonly dimension = LocalWordsEmbeddingProvider.DIMENSION;
  /** As the hashed model: below it, hits share only boilerplate. */
  readonly minSimilarity = 0.1;
  private readonly lexical = new LocalHashEmbeddingProvider();
  private encoder: SifSentenceEncoder | null = null;

  /** `file`: the word-vector table (default: the shipped one). Throws at once when it does not exist. */
  constructor(private readonly file: string = defaultWordVectorsFile()) {
    super();
    if (!existsSync(file)) {
      throw new Error(
        `Word-vector table not found: ${file} (it ships in config/word-vectors/; npm run ai:build-word-vectors rebuilds it)`,
      );
    }
  }

  get recipe(): LocalEmbeddingRecipe {
    return { model: 'words', file: this.file };
  }

  /** Reads the word-vector table (~70 ms of CPU in one piece). */
  override prepare(): void {
    this.sentenceEncoder();
  }

  /** The synchronous core; the zero vector for a text without any usable word. */
  vectorize(text: string): Float32Array {
    const input = text.slice(0, LocalHashEmbeddingProvider.MAX_INPUT_CHARS);
    const meaning = this.sentenceEncoder().encode(input);
    const words = this.lexical.vectorize(input);
    const result = new Float32Array(this.dimension);
    const meaningScale = Math.sqrt(SEMANTIC_SHARE);
    const wordsScale = Math.sqrt(1 - SEMANTIC_SHARE);
    let squares = 0;
    for (let index = 0; index < meaning.length; index++) {
      result[index] = meaning[index] * meaningScale;
      squares += result[index] ** 2;
    }
    for (let index = 0; index < words.length; index++) {
      result[meaning.length + index] = words[index] * wordsScale;
      squares += result[meaning.length + index] ** 2;
    }
    // One part may be zero (no known word, or only unknown ones): the other then has the whole length.
    if (squares > 0 && Math.abs(squares - 1) > 1e-6) {
      const inverse = 1 / Math.sqrt(squares);
      for (let index = 0; index < result.length; index++) result[index] *= inverse;
    }
    return result;
  }

  private sentenceEncoder(): SifSentenceEncoder {
    if (!this.encoder) {
      const vectors = WordVectors.load(this.file);
      if (vectors.dimension !== WORD_VECTOR_DIMENSION) {
        throw new Error(
          `Word-vector table ${this.file} has ${vectors.dimension} dimensions, ${this.modelName} needs ${WORD_VECTOR_DIMENSION}`,
        );
      }
      this.encoder = new SifSentenceEncoder(vectors);
    }
    return this.encoder;
  }
}

/**
 * config/word-vectors/<table> at the repository root, found from src/embeddings (jest) or
 * dist/src/embeddings (built), falling back to the working directory.
 */
export function defaultWordVectorsFile(): string {
  const relative = path.join('config', 'word-vectors', WORD_VECTORS_FILE_NAME);
  const candidates = [
    path.resolve(__dirname, '../..', relative),
    path.resolve(__dirname, '../../..', relative),
    path.resolve(process.cwd(), relative),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[candidates.length - 1];
}
