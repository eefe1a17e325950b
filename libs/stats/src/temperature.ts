// Each model at its own best temperature: its pass@1 on dev problems at every candidate temperature (0 = greedy),
// and the choice made from those numbers. Choosing on dev problems, never on the test problems, keeps the test
// figures unbiased by the choice; a model whose best is greedy still needs a sampling temperature for pass@k, so the
// best temperature above 0 is kept too. Pure functions, checked in temperature.test.ts.

/** One candidate temperature's dev figure. */
export interface DevPoint {
  temperature: number;
  passAt1: number;
}

/** Dev pass@1 values closer than this are a tie (the same rate summed in another order differs in the last bits). */
const TIE = 1e-12;

/** The temperature with the highest dev pass@1; ties go to the lower temperature (greedy first, then the coolest). */
export function bestTemperature(points: readonly DevPoint[]): number {
  if (points.length === 0) throw new Error('bestTemperature: no temperatures were tried');
  const ascending = [...points].sort((a, b) => a.temperature - b.temperature);
  return ascending.reduce((best, p) => (p.passAt1 > best.passAt1 + TIE ? p : best)).temperature;
}

/** The best temperature above 0 (the sampled pass's, for pass@k), or null when only greedy was tried. */
export function bestSamplingTemperature(points: readonly DevPoint[]): number | null {
  const sampled = points.filter((p) => p.temperature > 0);
  return sampled.length === 0 ? null : bestTemperature(sampled);
}

/** eval.json's key of a temperature: "0", "0.2", "1". */
export const temperatureKey = (t: number): string => String(t);
