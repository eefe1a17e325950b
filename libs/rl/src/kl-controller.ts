// The coefficient of the KL penalty, fixed or adapted towards a target KL (Ziegler et al. 2019, as in TRL):
//   error = clip(KL / target - 1, -0.2, 0.2)
//   coef *= 1 + error * nSteps / horizon
// KL above the target raises the coefficient (pulling the policy back), below it lowers it. `nSteps` is the
// number of samples the KL was measured on, so the speed of adaptation does not depend on the batch size.
export type KlControllerState =
  | { kind: 'fixed'; value: number }
  | { kind: 'adaptive'; value: number; target: number; horizon: number };

export interface KlController {
  /** The current coefficient. */
  readonly value: number;
  /** Feed the KL measured on the last batch of `nSteps` samples. */
  update(currentKl: number, nSteps: number): void;
  /** Everything needed to continue after a restart. */
  state(): KlControllerState;
}

function checkCoef(value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) throw new Error(`KL controller: the coefficient must be finite and >= 0, got ${value}`);
}

export class FixedKlController implements KlController {
  constructor(readonly value: number) {
    checkCoef(value);
  }
  update(_currentKl: number, _nSteps: number): void {}
  state(): KlControllerState {
    return { kind: 'fixed', value: this.value };
  }
}

export class AdaptiveKlController implements KlController {
  value: number;

  constructor(initValue: number, readonly target: number, readonly horizon: number) {
    checkCoef(initValue);
    if (!(target > 0)) throw new Error(`AdaptiveKlController: target must be > 0, got ${target}`);
    if (!(horizon > 0)) throw new Error(`AdaptiveKlController: horizon must be > 0, got ${horizon}`);
    this.value = initValue;
  }

  update(currentKl: number, nSteps: number): void {
    // A NaN KL must not poison the coefficient for the rest of the run.
    if (!Number.isFinite(currentKl)) return;
    const error = Math.min(0.2, Math.max(-0.2, currentKl / this.target - 1));
    this.value *= 1 + (error * nSteps) / this.horizon;
  }

  state(): KlControllerState {
    return { kind: 'adaptive', value: this.value, target: this.target, horizon: this.horizon };
  }
}

/** A new controller: adaptive when a target is given, else fixed at initValue. */
export function createKlController(opts: { initValue: number; target?: number; horizon?: number }): KlController {
  return opts.target !== undefined && opts.target > 0
    ? new AdaptiveKlController(opts.initValue, opts.target, opts.horizon ?? 10000)
    : new FixedKlController(opts.initValue);
}

/** The controller a saved state describes (e.g. trainer_state.json on --resume); errors name `where`. */
export function restoreKlController(state: unknown, where = 'KL controller state'): KlController {
  const s = state as Partial<{ kind: string; value: number; target: number; horizon: number }> | null;
  if (!s || typeof s !== 'object' || typeof s.value !== 'number') throw new Error(`${where}: expected {kind, value, ...}, got ${JSON.stringify(state)}`);
  if (s.kind === 'fixed') return new FixedKlController(s.value);
  if (s.kind === 'adaptive' && typeof s.target === 'number' && typeof s.horizon === 'number') {
    return new AdaptiveKlController(s.value, s.target, s.horizon);
  }
  throw new Error(`${where}: unknown or incomplete controller ${JSON.stringify(state)}`);
}
