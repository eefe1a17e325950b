// A/B routing: a fixed share of completion requests is served by the frozen starting model (arm "start"), the
// rest by the policy being trained (arm "policy"), drawn independently per request from a seeded generator so a
// run can be repeated. Comparing the arms' acceptance on the same stream of requests tells whether training helps.
import { createRng, type Rng } from '@rlhf-code/model';
import type { Arm } from './feedback-log';

export class ArmRouter {
  private readonly rng: Rng;

  constructor(
    readonly startFraction: number,
    seed: number | string = 0,
  ) {
    if (!(startFraction >= 0 && startFraction <= 1)) throw new Error(`ArmRouter: startFraction must be in [0, 1], got ${startFraction}`);
    this.rng = createRng(`ab:${seed}`);
  }

  route(): Arm {
    if (this.startFraction === 0) return 'policy';
    if (this.startFraction === 1) return 'start';
    return this.rng.next() < this.startFraction ? 'start' : 'policy';
  }
}
