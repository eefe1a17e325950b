// Counts of served suggestions and how they were received, and the rates Cursor reported for its Tab model:
// suggestion rate = shown / requests, acceptance of shown suggestions = accepted / shown (with its Wilson 95%
// interval), accepted per request = accepted / requests. Shared by the simulated user and the online server's status.
import { wilson } from '@rlhf-code/stats';

export interface Counts {
  requests: number;
  silent: number;
  shown: number;
  accepted: number;
  rejected: number;
}

export interface CountsWithRates extends Counts {
  no_outcome: number;
  suggestion_rate: number | null;
  acceptance_rate: number | null;
  /** Wilson score 95% interval of acceptance_rate; null without outcomes. */
  acceptance_ci95: [number, number] | null;
  accepted_per_request: number | null;
}

/** Counts of nothing yet. */
export const zeroCounts = (): Counts => ({ requests: 0, silent: 0, shown: 0, accepted: 0, rejected: 0 });
const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function withRates(c: Counts): CountsWithRates {
  return {
    ...c,
    no_outcome: Math.max(0, c.requests - c.silent - c.shown),
    suggestion_rate: ratio(c.shown, c.requests),
    acceptance_rate: ratio(c.accepted, c.shown),
    acceptance_ci95: wilson(c.accepted, c.shown),
    accepted_per_request: ratio(c.accepted, c.requests),
  };
}
