/**
 * The efficiency of one answered run, in percent:
 *
 *   E = ½ × RoundEfficiency + ResultEfficiency
 *   RoundEfficiency  = (maxRounds − rounds) / maxRounds × 100
 *   ResultEfficiency = min(50, toolResults / rounds × 50)
 *   a direct answer (no round) is 100.
 *
 * A plain sum would exceed 100; halving the round part is the form that gives the expected figures: 100 % for
 * a direct answer, 95 % for 1 round with 1 result, 85 % for 3 with 3, 75 % for 5 with 5, 50 % at the limit of 10.
 * Bands: 90-100 excellent, 70-89 good, 50-69 fair, below 50 critical.
 */
export function runEfficiency(rounds: number, toolResults: number, maxRounds: number): number {
  if (rounds <= 0 || maxRounds <= 0) return 100;
  const spent = Math.min(rounds, maxRounds);
  const roundEfficiency = ((maxRounds - spent) / maxRounds) * 100;
  const resultEfficiency = Math.min(50, (toolResults / rounds) * 50);
  return Math.round((roundEfficiency / 2 + resultEfficiency) * 10) / 10;
}
