import * as path from 'node:path';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { LocalEmbeddingWorker } from './local-embedding.worker';
import { LocalWordsEmbeddingProvider } from './local-words-embedding.provider';

/** The thread runs the TypeScript sources: it is given the loader the test harness uses. */
const WITH_LOADER = ['--require', path.join(__dirname, '../../test/support/swc-register.js')];

/** Plain numbers: a typed array made by the thread's message belongs to another realm than Jest's. */
const values = (vector: Float32Array) => Array.from(vector);

const TEXTS = [
  'Send the weekly invoice report by email',
  'fetchPlayers from the NBA stats API',
  'Données récupérées du fichier',
  '',
  'x',
];

describe(LocalEmbeddingWorker.name, () => {
  const workers: LocalEmbeddingWorker[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
  });

  it.each([
    ['local-words', new LocalWordsEmbeddingProvider()],
    ['local-hash (256)', new LocalHashEmbeddingProvider({ dimension: 256 })],
  ])('computes in its thread the vectors %s computes here, bit for bit', async (_, provider) => {
    const worker = new LocalEmbeddingWorker(provider.recipe, { execArgv: WITH_LOADER });
    workers.push(worker);
    const vectors = await worker.embed(TEXTS);
    expect(vectors).toHaveLength(TEXTS.length);
    vectors.forEach((vector, index) => expect(values(vector)).toEqual(values(provider.vectorize(TEXTS[index]))));
  });

  it('takes the batches of the provider it is given to, while a single text stays in this thread', async () => {
    const provider = new LocalHashEmbeddingProvider();
    const worker = new LocalEmbeddingWorker(provider.recipe, { execArgv: WITH_LOADER });
    workers.push(worker);
    const embed = jest.spyOn(worker, 'embed');
    provider.vectorizeBatchesWith(worker);
    const batch = await provider.embed(TEXTS.slice(0, 2));
    expect(embed).toHaveBeenCalledTimes(1);
    expect(values(batch[1])).toEqual(values(provider.vectorize(TEXTS[1])));
    await provider.embedOne('one question');
    expect(embed).toHaveBeenCalledTimes(1);
  });

  it('fails the batches waiting when stopped, and starts a new thread for the next one', async () => {
    const provider = new LocalHashEmbeddingProvider();
    const worker = new LocalEmbeddingWorker(provider.recipe, { execArgv: WITH_LOADER });
    workers.push(worker);
    const waiting = worker.embed(TEXTS);
    await worker.stop();
    await expect(waiting).rejects.toThrow(/stopped/);
    expect((await worker.embed(['again'])).map(values)).toEqual([values(provider.vectorize('again'))]);
  });

  it('refuses a batch once its signal is aborted', async () => {
    const worker = new LocalEmbeddingWorker(new LocalHashEmbeddingProvider().recipe, { execArgv: WITH_LOADER });
    workers.push(worker);
    await expect(worker.embed(['text'], AbortSignal.abort())).rejects.toThrow();
  });
});
