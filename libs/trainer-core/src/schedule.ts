// Learning-rate schedule as nanoGPT's get_lr: linear warmup, then decay to minLr at totalSteps; or warmup-stable-decay
// (wsd: warmup, the peak rate held, then a linear decay to minLr over the last decaySteps steps before totalSteps).
//
// wsd is the schedule a run trained in chunks uses (Hägele et al. 2024, "Scaling Laws and Compute-Optimal Training
// Beyond Fixed Training Durations"): until its decay starts the rate does not depend on totalSteps, so a chunk that
// resumes with a larger --max-steps continues at the same rate, where a cosine recomputed on resume jumps. Intended
// use: constant-phase chunks with a --max-steps far beyond where they stop (--max-minutes ends them), then a final chunk
// with the real --max-steps, whose last --decay-steps steps decay.
//
// restartStep: a run that starts from a checkpoint's position with a fresh optimizer (--init) ramps its rate up again
// over warmupSteps steps from there (the schedule's rate times (step - restartStep + 1) / (warmupSteps + 1)): new
// AdamW moments at the full rate would take a few hundred large, badly scaled steps.
export type LrScheduleKind = 'cosine' | 'linear' | 'constant' | 'wsd';
export const LR_SCHEDULES = ['cosine', 'linear', 'constant', 'wsd'] as const satisfies readonly LrScheduleKind[];

export interface LrScheduleConfig {
  maxLr: number; // reached at the end of warmup
  minLr?: number; // reached at totalSteps and kept after (default maxLr / 10, as nanoGPT); unused by 'constant'
  warmupSteps?: number; // default 0
  totalSteps: number; // the decay ends here
  kind?: LrScheduleKind; // default 'cosine'; 'constant' stays at maxLr after warmup
  decaySteps?: number; // wsd: the decay's length, ending at totalSteps (default a fifth of totalSteps)
  restartStep?: number; // the step a fresh optimizer started at (0: the run's start): warmup applies again from there
}

/** wsd's decay length: decaySteps, else a fifth of the run (Hägele et al.: a 20% cooldown matches cosine). */
export const wsdDecaySteps = (totalSteps: number, decaySteps?: number): number => decaySteps ?? Math.round(totalSteps / 5);

/** Returns lr(step) for 0-based steps. */
export function lrSchedule({
  maxLr,
  minLr = maxLr / 10,
  warmupSteps = 0,
  totalSteps,
  kind = 'cosine',
  decaySteps,
  restartStep = 0,
}: LrScheduleConfig): (step: number) => number {
  if (!(maxLr >= 0) || !Number.isFinite(maxLr)) throw new Error(`lrSchedule: invalid maxLr ${maxLr}`);
  if (!(minLr >= 0 && minLr <= maxLr)) throw new Error(`lrSchedule: minLr ${minLr} must be in [0, maxLr]`);
  if (!Number.isInteger(warmupSteps) || warmupSteps < 0) {
    throw new Error(`lrSchedule: warmupSteps must be a non-negative integer, got ${warmupSteps}`);
  }
  if (!Number.isInteger(totalSteps) || totalSteps < warmupSteps) {
    throw new Error(`lrSchedule: totalSteps must be an integer >= warmupSteps (${warmupSteps}), got ${totalSteps}`);
  }
  if (!LR_SCHEDULES.includes(kind)) throw new Error(`lrSchedule: unknown kind "${kind}"`);
  if (decaySteps !== undefined && (!Number.isInteger(decaySteps) || decaySteps < 0)) {
    throw new Error(`lrSchedule: decaySteps must be a non-negative integer, got ${decaySteps}`);
  }
  if (!Number.isInteger(restartStep) || restartStep < 0) throw new Error(`lrSchedule: restartStep must be a non-negative integer, got ${restartStep}`);
  // Where the decay starts: after the warmup (cosine, linear), or decaySteps before the end (wsd; never inside the warmup).
  const decayStart = kind === 'wsd' ? Math.max(warmupSteps, totalSteps - wsdDecaySteps(totalSteps, decaySteps)) : warmupSteps;
  const scheduled = (step: number): number => {
    // (step + 1) / (warmupSteps + 1): the first step already learns, and warmup ends just below maxLr.
    if (step < warmupSteps) return (maxLr * (step + 1)) / (warmupSteps + 1);
    if (kind === 'constant' || step < decayStart) return maxLr;
    if (step >= totalSteps) return minLr;
    const ratio = (step - decayStart) / (totalSteps - decayStart); // 0 -> 1 over the decay
    const coeff = kind === 'cosine' ? 0.5 * (1 + Math.cos(Math.PI * ratio)) : 1 - ratio; // 1 -> 0 (linear and wsd: a straight line)
    return minLr + coeff * (maxLr - minLr);
  };
  return (step) => {
    if (!Number.isInteger(step) || step < 0) throw new Error(`lrSchedule: step must be a non-negative integer, got ${step}`);
    const lr = scheduled(step);
    if (restartStep === 0 || step < restartStep || step >= restartStep + warmupSteps) return lr;
    return (lr * (step - restartStep + 1)) / (warmupSteps + 1);
  };
}
