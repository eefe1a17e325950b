// Does online learning raise acceptance for a user it is not told about, and which mechanism does it? One run:
//   1. train: the service (starting model, live updates, the show gate) serves `events` requests on the train files,
//      the simulated user judges what Continue displays, and the outcomes train the policy and the gate;
//   2. held out: ONE service serves the trained policy (the newest checkpoint, with its gate.json) and the starting
//      model, no training, no exploring, through the six arms of EXPERIMENT_ARMS (libs/online-core arms.ts) with blocked routing: every
//      held-out position is sent once per arm, consecutively (the same prompt, Continue's temperature 0.01, one
//      sampling seed per position), so each position gets every arm exactly once, in a random order; no feedback;
//   3. the comparison (libs/online-core ab-analysis.ts): per arm, accepted and Cursor's utility per request and the acceptance of shown
//      suggestions; each arm minus `start`, and the mechanism contrasts rank - hold-cut, hide - hold-cut and
//      all - update, as paired differences over positions with a cluster bootstrap interval over files and a sign-flip
//      permutation test over positions.
// Both phases serve on the simulated clock (completion.clock "simulated", libs/continue latency.ts): what Continue
// displays depends on what the server sent, not on how fast the machine was at that moment, and a held suggestion is
// cut by when it would arrive, the same for every arm that holds.
import { RLINF_EXAMPLE, runSimulation, simUser, type PromptForm, type SimulationRecord, type SimulationSummary, type SimUserName } from '@rlhf-code/continue';
import { shuffle, type FimRecord } from '@rlhf-code/data';
import { startMeasuringService, startOnlineService } from '@rlhf-code/online';
import { analyseArms, EXPERIMENT_ARMS, formatArmAnalysis, parseOnlineConfig, type ArmAnalysis, type OnlineConfigInput, type OnlineStatus } from '@rlhf-code/online-core';
import { listCheckpoints } from '@rlhf-code/online-learning';

export const EXPERIMENT_PACES = ['free', 'trainer'] as const;
export type ExperimentPace = (typeof EXPERIMENT_PACES)[number];

export interface ExperimentOptions {
  /** The starting model folder. */
  model: string;
  train: FimRecord[];
  heldOut: FimRecord[];
  user: SimUserName;
  form: PromptForm;
  /** Training requests. */
  events: number;
  /** The training service's state (feedback log, checkpoints); the trained policy is its newest checkpoint. */
  stateDir: string;
  countTokens: (text: string) => number;
  fileOf?: (example: FimRecord) => string | null;
  /**
   * How fast the simulated user makes training requests: free = as soon as the last one is answered (updates run
   * behind, so most requests are served by early versions); trainer = after the running or due update has finished
   * (a user slower than the trainer, as a person is: each request is served by the newest policy). Default trainer.
   */
  pace?: ExperimentPace;
  /** Overrides of the service config for the training run (e.g. training.lr); the clock is always simulated. */
  config?: OnlineConfigInput;
  /** Measure a seeded random subset of this many held-out positions (a quick run); default all. */
  limitPositions?: number;
  /** Bootstrap resamples of the analysis (default 2,000). */
  resamples?: number;
  seed?: number;
  log?: (line: string) => void;
}

/** The mechanism contrasts besides each arm minus `start`: what ranking and hiding add to holding, what the gate adds to the update. */
export const MECHANISM_CONTRASTS: readonly (readonly [string, string])[] = [
  ['rank', 'hold-cut'],
  ['hide', 'hold-cut'],
  ['all', 'update'],
];

export interface HeldOutSummary {
  /** Held-out positions measured, and the files they are in. */
  positions: number;
  files: number;
  trained_version: number;
  /** The gate was active (fitted and validated) when measured; if not, every gate arm served as its model streams. */
  gate_active: boolean;
  /** all / start: acceptance of shown suggestions and accepted per request (null when start had none). */
  acceptance_ratio: number | null;
  accepted_per_request_ratio: number | null;
  /** Wall-clock seconds of the two phases (training, held-out measurement). */
  seconds: { train: number; heldout: number };
}

export interface ExperimentResult extends ArmAnalysis {
  user: SimUserName;
  form: PromptForm;
  events: number;
  pace: ExperimentPace;
  train: SimulationSummary;
  /** The show gate at the end of training (status().gate): what the trained policy is measured with. */
  gate: OnlineStatus['gate'];
  heldout: HeldOutSummary;
  /** The held-out requests, one per position and arm ({position, file, arm, shown, accepted}): the analysis' input. */
  records: SimulationRecord[];
}

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

export async function runOnlineExperiment(o: ExperimentOptions): Promise<ExperimentResult> {
  const say = o.log ?? (() => undefined);
  const user = simUser(o.user);
  const sim = { token: RLINF_EXAMPLE.token, project: RLINF_EXAMPLE.project, countTokens: o.countTokens, user, form: o.form, fileOf: o.fileOf, seed: o.seed ?? 0, log: say, clock: 'simulated' as const };
  const completion = { ...o.config?.completion, clock: 'simulated' as const };

  const config = parseOnlineConfig({
    abFraction: 0,
    ...o.config,
    model: o.model,
    stateDir: o.stateDir,
    completion: { ...completion, port: 0 },
    feedback: { ...o.config?.feedback, port: 0, tokens: [sim.token], projects: [sim.project] },
  });
  const t0 = Date.now();
  const service = await startOnlineService(config, { log: say });
  let train: SimulationSummary;
  let gate: OnlineStatus['gate'];
  try {
    train = await runSimulation({
      ...sim,
      examples: o.train,
      events: o.events,
      completionUrl: `${service.completionUrl}/v1/completions`,
      feedbackUrl: `${service.feedbackUrl}/api/training/submit`,
      reportEvery: 50,
      beforeRequest: (o.pace ?? 'trainer') === 'trainer' ? () => service.idle() : undefined,
    });
    await service.idle();
    gate = service.status().gate;
  } finally {
    await service.close(); // writes the checkpoint of the last version
  }
  const newest = listCheckpoints(o.stateDir)[0];
  // Without a single update the comparison would be the start model against itself: an error, not a 1.00x result.
  if (!newest) throw new Error(`online experiment: ${o.events} training requests produced no policy update (every update failed or was discarded: see the [online] lines above)`);

  const t1 = Date.now();
  const heldOut = o.limitPositions === undefined ? o.heldOut : shuffle(o.heldOut, `positions:${o.seed ?? 0}`).slice(0, o.limitPositions);
  const arms = EXPERIMENT_ARMS;
  // The training service's completion and gate settings, except the exploration floor: held out, requests are served
  // as asked, and the gate hides without exploring (startMeasuringService).
  const { service: s, stop } = await startMeasuringService(o.model, { ...completion, temperatureFloor: 0 }, o.config?.gate, {
    policy: newest,
    arms: [...arms],
    routing: 'blocked',
  });
  let measured: SimulationSummary;
  let gateActive: boolean;
  try {
    gateActive = s.gate.active;
    if (!gateActive) say(`[experiment] the trained gate is not active (not fitted or not validated): hold-cut, rank, hide and all serve as their models stream`);
    measured = await runSimulation({
      ...sim,
      examples: heldOut,
      events: heldOut.length * arms.length,
      perExample: arms.length,
      completionUrl: `${s.completionUrl}/v1/completions`,
      feedbackUrl: null,
      reportEvery: 0,
    });
  } finally {
    await stop();
  }
  const t2 = Date.now();
  say(`[experiment] training ${((t1 - t0) / 60000).toFixed(1)} min; held out ${measured.requests} requests in ${((t2 - t1) / 60000).toFixed(1)} min`);
  checkBlocks(measured, heldOut.length, arms.length);
  const contrasts = [...arms.filter((a) => a.name !== 'start').map((a) => [a.name, 'start'] as const), ...MECHANISM_CONTRASTS];
  const analysis = analyseArms(measured.records, contrasts, { resamples: o.resamples, seed: o.seed });
  const [start, all] = [analysis.arms.start, analysis.arms.all];
  return {
    user: o.user,
    form: o.form,
    events: o.events,
    pace: o.pace ?? 'trainer',
    train,
    gate,
    heldout: {
      positions: heldOut.length,
      files: new Set(heldOut.map((e) => e.path)).size,
      trained_version: newest.version,
      gate_active: gateActive,
      acceptance_ratio: ratio(all.acceptance_rate, start.acceptance_rate),
      accepted_per_request_ratio: ratio(all.accepted_per_request, start.accepted_per_request),
      seconds: { train: (t1 - t0) / 1000, heldout: (t2 - t1) / 1000 },
    },
    ...analysis,
    records: measured.records,
  };
}

/** Every position got every arm exactly once (blocked routing lined up with the simulator's consecutive requests). */
function checkBlocks(s: SimulationSummary, positions: number, arms: number): void {
  const seen = new Map<number, Set<string>>();
  for (const r of s.records) {
    if (!seen.has(r.position)) seen.set(r.position, new Set());
    seen.get(r.position)!.add(r.arm);
  }
  const bad = [...seen].find(([, a]) => a.size !== arms);
  if (seen.size !== positions || bad) {
    throw new Error(`online experiment: the held-out requests did not give every position each of the ${arms} arms once (${bad ? `position ${bad[0]}: ${[...bad[1]].join(', ')}` : `${seen.size} of ${positions} positions`})`);
  }
}

/** The held-out result as printed: a line on what was measured, the arms' table and the contrasts' table (markdown). */
export function formatExperiment(r: ExperimentResult): string {
  const h = r.heldout;
  const x = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)}x`);
  return [
    `Held out: ${h.positions} positions in ${h.files} files, each served once by every arm (trained = policy v${h.trained_version}, ` +
      `gate ${h.gate_active ? 'active' : 'NOT active: its arms served as their models stream'}; simulated clock):`,
    '',
    formatArmAnalysis(r, EXPERIMENT_ARMS),
    '',
    `all / start: accepted of shown ${x(h.acceptance_ratio)}, accepted per request ${x(h.accepted_per_request_ratio)}`,
  ].join('\n');
}
