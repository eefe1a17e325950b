// Learning-rate schedule as nanoGPT's get_lr: linear warmup, then decay to minLr at totalSteps.
export type LrScheduleKind = 'cosine' | 'linear' | 'constant';

export interface LrScheduleConfig {
  maxLr: number; // reached at the end of warmup
  minLr?: number; // reached at totalSteps and kept after (default maxLr / 10, as nanoGPT); unused by 'constant'
  warmupSteps?: number; // default 0
  totalSteps: number; // the decay ends here
  kind?: LrScheduleKind; // default 'cosine'; 'constant' stays at maxLr after warmup
}

/** Returns lr(step) for 0-based steps. */
export function lrSchedule({
  maxLr,
  minLr = maxLr / 10,
  warmupSteps = 0,
  totalSteps,
  kind = 'cosine',
}: LrScheduleConfig): (step: number) => number {
  if (!(maxLr >= 0) || !Number.isFinite(maxLr)) throw new Error(`lrSchedule: invalid maxLr ${maxLr}`);
  if (!(minLr >= 0 && minLr <= maxLr)) throw new Error(`lrSchedule: minLr ${minLr} must be in [0, maxLr]`);
  if (!Number.isInteger(warmupSteps) || warmupSteps < 0) {
    throw new Error(`lrSchedule: warmupSteps must be a non-negative integer, got ${warmupSteps}`);
  }
  if (!Number.isInteger(totalSteps) || totalSteps < warmupSteps) {
    throw new Error(`lrSchedule: totalSteps must be an integer >= warmupSteps (${warmupSteps}), got ${totalSteps}`);
  }
  if (!['cosine', 'linear', 'constant'].includes(kind)) throw new Error(`lrSchedule: unknown kind "${kind}"`);
  return (step) => {
    if (!Number.isInteger(step) || step < 0) throw new Error(`lrSchedule: step must be a non-negative integer, got ${step}`);
    // (step + 1) / (warmupSteps + 1): the first step already learns, and warmup ends just below maxLr.
    if (step < warmupSteps) return (maxLr * (step + 1)) / (warmupSteps + 1);
    if (kind === 'constant') return maxLr;
    if (step >= totalSteps) return minLr;
    const ratio = (step - warmupSteps) / (totalSteps - warmupSteps); // 0 -> 1 over the decay
    const coeff = kind === 'cosine' ? 0.5 * (1 + Math.cos(Math.PI * ratio)) : 1 - ratio; // 1 -> 0
    return minLr + coeff * (maxLr - minLr);
  };
}
