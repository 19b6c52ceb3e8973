import { runEfficiency } from './run-efficiency';

describe(runEfficiency.name, () => {
  it('gives every example of seed 003 (10 rounds at most)', () => {
    expect(runEfficiency(0, 0, 10)).toBe(100);
    expect(runEfficiency(1, 1, 10)).toBe(95);
    expect(runEfficiency(3, 3, 10)).toBe(85);
    expect(runEfficiency(5, 5, 10)).toBe(75);
    expect(runEfficiency(10, 10, 10)).toBe(50);
  });

  it('loses the result half when rounds bring no result, and never goes below 0 or above 100', () => {
    expect(runEfficiency(2, 0, 10)).toBe(40);
    expect(runEfficiency(10, 0, 10)).toBe(0);
    expect(runEfficiency(1, 7, 10)).toBe(95);
    expect(runEfficiency(12, 12, 10)).toBe(50);
    expect(runEfficiency(0, 0, 0)).toBe(100);
  });

  it('reads against the configured rounds (AI_MAX_TOOL_ROUNDS, 5 by default)', () => {
    expect(runEfficiency(1, 1, 5)).toBe(90);
    expect(runEfficiency(5, 5, 5)).toBe(50);
  });
});
