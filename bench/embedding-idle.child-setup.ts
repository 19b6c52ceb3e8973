/**
 * Setup module of the first-question bench's service process (TestAppProcessOptions.setupModule):
 * answers `{ embeddingIdle: true }` once the background embedding queue has nothing pending or
 * running, so that the bench waits for the embedding itself rather than guessing it from the
 * process's CPU, which a loaded machine starves below any threshold.
 */
import type { INestApplication } from '@nestjs/common';
import { NodeEmbeddingQueue } from '../src/embeddings/node-embedding.queue';

export function beforeListen(app: INestApplication): void {
  process.on('message', (message: { embeddingIdle?: boolean }) => {
    if (!message?.embeddingIdle) return;
    const queue = app.get(NodeEmbeddingQueue, { strict: false }) as NodeEmbeddingQueue | null;
    void (queue?.whenIdle() ?? Promise.resolve()).then(() => process.send?.({ embeddingIdle: true }));
  });
}
