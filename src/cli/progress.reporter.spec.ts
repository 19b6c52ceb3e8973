import { ProgressReporter } from './progress.reporter';

function capture(isTTY: boolean) {
  const writes: string[] = [];
  return {
    writes,
    io: {
      stdout: { write: (text: string) => writes.push(text), isTTY, columns: 80 },
      stderr: { write: () => undefined },
    },
  };
}

describe(ProgressReporter.name, () => {
  it('redraws one bar in place on a terminal, at most every 100 ms and always at the end', () => {
    let now = 0;
    const { writes, io } = capture(true);
    const progress = new ProgressReporter(io, () => now);
    progress.update('g', 1, 4, 'embedded 0');
    now = 50;
    progress.update('g', 2, 4, 'embedded 0');
    now = 200;
    progress.update('g', 3, 4, 'embedded 2');
    progress.update('g', 4, 4, 'embedded 4');
    progress.finish();
    expect(writes).toHaveLength(4);
    expect(writes[0]).toMatch(/^\rg \[#{7}\.{21}\] {2}25% 1\/4 embedded 0/);
    expect(writes[2]).toMatch(/^\rg \[#{28}\] 100% 4\/4 embedded 4/);
    expect(writes[3]).toBe('\n');
  });

  it('prints plain lines at each tenth of large jobs, and nothing for small ones, off a terminal', () => {
    const { writes, io } = capture(false);
    const progress = new ProgressReporter(io);
    for (let done = 1; done <= 10; done += 1) progress.update('small', done, 10, '');
    expect(writes).toEqual([]);
    for (let done = 1; done <= 2000; done += 1) progress.update('big', done, 2000, 'x');
    expect(writes).toHaveLength(11);
    expect(writes[10]).toBe('big: 2000/2000 (100%) x\n');
  });
});
