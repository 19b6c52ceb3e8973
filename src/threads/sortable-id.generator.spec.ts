import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { generateMessageId, generateSortableId, generateThreadId, isThreadIdShape } from './sortable-id.generator';

const run = promisify(execFile);

/** Ids made by a fresh node process (its own random pool), all in the same millisecond. */
async function idsOfAnotherProcess(count: number, now: number): Promise<string[]> {
  const script = `const { generateMessageId } = require(${JSON.stringify(path.join(__dirname, 'sortable-id.generator.ts'))});
    console.log(JSON.stringify(Array.from({ length: ${count} }, () => generateMessageId(${now}))));`;
  const register = path.join(__dirname, '../../test/support/swc-register.js');
  const { stdout } = await run(process.execPath, ['--require', register, '-e', script]);
  return JSON.parse(stdout) as string[];
}

describe(generateSortableId.name, () => {
  it('makes thread ids that start with ai_ and pass the shape check', () => {
    const id = generateThreadId();
    expect(id).toMatch(/^ai_[0-9a-z]{9}[0-9a-f]{16}$/);
    expect(isThreadIdShape(id)).toBe(true);
    expect(generateMessageId()).toMatch(/^msg_/);
  });

  it('sorts by creation time as plain strings', () => {
    const ids = [
      generateThreadId(1_700_000_000_000),
      generateThreadId(1_700_000_000_001),
      generateThreadId(1_800_000_000_000),
    ];
    expect([...ids].reverse().sort()).toEqual(ids);
  });

  it('never repeats within one millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => generateThreadId(1_700_000_000_000)));
    expect(ids.size).toBe(10_000);
  });

  it('never repeats across many refills of its random pool, and keeps the time part of each call', () => {
    const ids = Array.from({ length: 200_000 }, (_, index) => generateMessageId(1_700_000_000_000 + (index % 3)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(-16))).size).toBe(ids.length);
    expect(
      ids.every((id, index) => id.startsWith(`msg_${(1_700_000_000_000 + (index % 3)).toString(36).padStart(9, '0')}`)),
    ).toBe(true);
    expect(ids.every((id) => /^msg_[0-9a-z]{9}[0-9a-f]{16}$/.test(id))).toBe(true);
  });

  it('never repeats across processes started together, in the same millisecond', async () => {
    const now = 1_800_000_000_000;
    const [first, second] = await Promise.all([idsOfAnotherProcess(2_000, now), idsOfAnotherProcess(2_000, now)]);
    const here = Array.from({ length: 2_000 }, () => generateMessageId(now));
    expect(new Set([...first, ...second, ...here]).size).toBe(6_000);
  });

  it('rejects what cannot be a thread id, accepts the format Nodius already stored', () => {
    expect(isThreadIdShape('ai_1700000000000_3')).toBe(true);
    expect(isThreadIdShape('th_123')).toBe(false);
    expect(isThreadIdShape('ai_')).toBe(false);
    expect(isThreadIdShape('ai_../../etc')).toBe(false);
  });
});
