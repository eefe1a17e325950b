// A/B routing: each completion request is served by one of the configured arms (config.ts ArmSchema: a model, the
// trained policy or the frozen starting model, and the show gate's mechanisms it gets).
//   default    "policy" (the policy, every gate mechanism) and "start" (the starting model, none), a share abFraction
//              of requests to "start", drawn independently per request from a seeded generator (as before arms had
//              names: the same draws for the same seed)
//   random     each request independently, by the arms' shares
//   blocked    every block of consecutive requests, one per arm, gets each arm once in a seeded random order: a client
//              that sends each position once per arm, consecutively, gets every arm exactly once per position
// Comparing the arms' acceptance on the same stream of requests tells whether training (or a mechanism) helps.
import { resumableRng, type Rng } from '@rlhf-code/model';
import type { ArmSpec } from './config';

export type { ArmSpec };

/** An A/B arm's name (config `arms`; by default "policy" or "start"). */
export type Arm = string;

/** How requests are assigned to arms (config `routing`). */
export type Routing = 'random' | 'blocked';

/** Today's two arms: the trained policy with every gate mechanism, the frozen start model with none. */
export function defaultArms(startFraction: number): ArmSpec[] {
  if (!(startFraction >= 0 && startFraction <= 1)) throw new Error(`ArmRouter: startFraction must be in [0, 1], got ${startFraction}`);
  // "start" first: a draw below startFraction is the start arm, as it always was.
  return [
    { name: 'start', model: 'start', holdCut: false, rank: false, hide: false, share: startFraction },
    { name: 'policy', model: 'policy', holdCut: true, rank: true, hide: true, share: 1 - startFraction },
  ];
}

const arm = (name: string, model: ArmSpec['model'], m: Partial<Pick<ArmSpec, 'holdCut' | 'rank' | 'hide'>> = {}): ArmSpec => ({
  name,
  model,
  holdCut: false,
  rank: false,
  hide: false,
  share: 1,
  ...m,
});

/**
 * The held-out experiment's arms (libs/online-bench experiment.ts), each isolating one mechanism against `start`:
 *   start     the starting model, streamed                 hold-cut  the starting model, held and cut as it arrives
 *   rank      the starting model, best of the candidates   hide      the starting model, hidden below the threshold
 *   update    the trained policy, streamed (the update alone)   all  the trained policy, ranked and hidden
 */
export const EXPERIMENT_ARMS: readonly ArmSpec[] = [
  arm('start', 'start'),
  arm('hold-cut', 'start', { holdCut: true }),
  arm('rank', 'start', { rank: true }),
  arm('hide', 'start', { hide: true }),
  arm('update', 'policy'),
  arm('all', 'policy', { rank: true, hide: true }),
];

/** An arm's suggestions are held until complete (and sent whole, cut as they arrive) while the gate is active. */
export const holds = (a: ArmSpec): boolean => a.holdCut || a.rank || a.hide;

/** A routed request: its arm, and its block under blocked routing (null: random routing). */
export interface Routed {
  arm: ArmSpec;
  block: number | null;
}

export class ArmRouter {
  readonly arms: readonly ArmSpec[];
  private readonly rng: Rng;
  private readonly total: number;
  /** Blocked routing: the current block's arms in order, and the requests routed so far. */
  private block: ArmSpec[] = [];
  private routed = 0;

  /** `arms`: the arms, or a number: the default arms with that share of requests to "start". */
  constructor(
    arms: number | readonly ArmSpec[],
    seed: number | string = 0,
    readonly routing: Routing = 'random',
  ) {
    this.arms = typeof arms === 'number' ? defaultArms(arms) : arms;
    if (this.arms.length === 0) throw new Error('ArmRouter: no arms');
    if (new Set(this.arms.map((a) => a.name)).size !== this.arms.length) throw new Error(`ArmRouter: arm names must be unique, got ${this.arms.map((a) => a.name).join(', ')}`);
    this.total = this.arms.reduce((s, a) => s + a.share, 0);
    if (routing === 'random' && !(this.total > 0)) throw new Error('ArmRouter: random routing needs an arm with a share above 0');
    this.rng = resumableRng(`ab:${seed}`);
  }

  route(): Routed {
    if (this.routing === 'blocked') {
      const i = this.routed++ % this.arms.length;
      if (i === 0) this.block = permutation(this.arms, this.rng);
      return { arm: this.block[i], block: Math.floor((this.routed - 1) / this.arms.length) };
    }
    const live = this.arms.filter((a) => a.share > 0);
    if (live.length === 1) return { arm: live[0], block: null }; // no draw: one arm takes every request
    let u = this.rng.next() * this.total;
    for (const a of live) {
      if (u < a.share) return { arm: a, block: null };
      u -= a.share;
    }
    return { arm: live[live.length - 1], block: null }; // rounding at the top end
  }

  /** The model of an arm by name (modelOfArm). */
  modelOf(name: string): ArmSpec['model'] {
    return modelOfArm(this.arms, name);
  }
}

/** The model of the arm named `name`; a name no arm has (a log from another configuration): "start" is the start model. */
export function modelOfArm(arms: readonly Pick<ArmSpec, 'name' | 'model'>[], name: string): ArmSpec['model'] {
  return arms.find((a) => a.name === name)?.model ?? (name === 'start' ? 'start' : 'policy');
}

/** A seeded random order of `items` (Fisher-Yates). */
function permutation<T>(items: readonly T[], rng: Rng): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
