import * as path from 'node:path';
import { findJsonShapeProblem } from '../validation/json-shape.checker';
import { JsonBodyParseWorker } from './json-body-parse.worker';

const WITH_LOADER = ['--require', path.join(__dirname, '../../test/support/swc-register.js')];
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe(JsonBodyParseWorker.name, () => {
  let worker: JsonBodyParseWorker;
  // Pieces of 64 characters: a body of a few kilobytes comes back in dozens of them.
  beforeEach(() => (worker = new JsonBodyParseWorker({ execArgv: WITH_LOADER, pieceChars: 64 })));
  afterEach(() => worker.stop());

  it('gives the value JSON.parse gives, keys in order, the large arrays sent back in pieces', async () => {
    const document = {
      graph: { _key: 'g', name: 'Größe «test»', sheetsList: { '0': 'main' } },
      nodes: Array.from({ length: 120 }, (_, index) => ({
        _key: `n${index}`,
        data: { list: [index, -1.5e-7, null, true], text: 'é'.repeat(index % 7) },
      })),
      single: [{ only: 1 }],
      edges: Array.from({ length: 80 }, (_, index) => ({ _key: `e${index}`, source: `n${index}` })),
      nodeTypeConfigs: [],
    };
    const text = JSON.stringify(document);
    const parsed = await worker.parse(bytesOf(text));
    expect(worker.running).toBe(true);
    expect(JSON.stringify((parsed as { value: unknown }).value)).toBe(text);

    const list = [{ a: 1 }, [2, 3], 'four', 5];
    expect(await worker.parse(bytesOf(JSON.stringify(list)))).toEqual({ value: list });
  });

  it('reads a body as body-parser does: a byte order mark dropped, empty as {}, a top-level scalar malformed', async () => {
    expect(await worker.parse(bytesOf('\uFEFF { "a": [1, 2] }'))).toEqual({ value: { a: [1, 2] } });
    expect(await worker.parse(bytesOf(''))).toEqual({ value: {} });
    expect(await worker.parse(bytesOf('"text"'))).toEqual({ malformed: true });
    expect(await worker.parse(bytesOf('{"nodes": [1, 2'))).toEqual({ malformed: true });
  });

  it('refuses the shapes every body parser refuses, naming the same field', async () => {
    const forbidden = '{"nodes":[{"_key":"a"},{"_key":"b","data":{"__proto__":{"x":1}}}]}';
    const deep = `{"nodes":[${'['.repeat(70)}${']'.repeat(70)}, 1]}`;
    for (const text of [forbidden, deep]) {
      const problem = findJsonShapeProblem(JSON.parse(text));
      expect(problem).not.toBeNull();
      expect(await worker.parse(bytesOf(text))).toEqual({ problem });
    }
  });

  it('parses bodies sent at the same time, each whole, and leaves the caller its bytes when they were a slice', async () => {
    const texts = Array.from({ length: 4 }, (_, body) =>
      JSON.stringify({ body, nodes: Array.from({ length: 50 }, (__, index) => ({ body, index })) }),
    );
    const shared = Buffer.from(texts.join(''), 'utf8');
    const slices: Uint8Array[] = [];
    for (let offset = 0, body = 0; body < texts.length; offset += texts[body].length, body += 1)
      slices.push(shared.subarray(offset, offset + texts[body].length));
    const parsed = await Promise.all(slices.map((slice) => worker.parse(slice)));
    expect(parsed).toEqual(texts.map((text) => ({ value: JSON.parse(text) as unknown })));
    expect(shared.toString('utf8')).toBe(texts.join(''));
  });

  it('fails a body whose thread cannot run, rather than leaving it waiting', async () => {
    const broken = new JsonBodyParseWorker({ execArgv: [] });
    await expect(broken.parse(bytesOf(JSON.stringify({ nodes: [1, 2, 3] })))).rejects.toThrow();
    await broken.stop();
  });

  it('stops after its idle time and starts again on the next body', async () => {
    const idle = new JsonBodyParseWorker({ execArgv: WITH_LOADER, idleMs: 50 });
    expect(await idle.parse(bytesOf('{"a":[1,2]}'))).toEqual({ value: { a: [1, 2] } });
    const deadline = Date.now() + 5_000;
    while (idle.running && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle.running).toBe(false);
    expect(await idle.parse(bytesOf('{"b":[3,4]}'))).toEqual({ value: { b: [3, 4] } });
    await idle.stop();
  });
});
