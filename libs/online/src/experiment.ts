// Does online learning raise acceptance for a user it is not told about? One run:
//   1. train: the service (starting model, live updates) serves `events` requests on the train files, the simulated
//      user judges what Continue displays, and the outcomes train the policy;
//   2. held out: the starting model and the final policy each serve every held-out example once, with no training
//      and no feedback: the same prompts, Continue's near-greedy temperature (0.01), the training service's other
//      completion settings;
//   3. the comparison: acceptance of shown suggestions and accepted per request, trained over start, each with
//      Fisher's exact test (two-sided) and the Wilson 95% interval of each rate.
import { runSimulation, simUser, type PromptForm, type SimulationSummary, type SimUserName } from '@rlhf-code/continue';
import type { FimRecord } from '@rlhf-code/data';
import { fisherExact } from '@rlhf-code/stats';
import { listCheckpoints } from './checkpoints';
import { parseOnlineConfig, type OnlineConfigInput } from './config';
import { startMeasuringService, startOnlineService, type OnlineStatus } from './service';
import type { CountsWithRates } from './stats';

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
  /** Overrides of the service config for the training run (e.g. training.lr). */
  config?: OnlineConfigInput;
  seed?: number;
  log?: (line: string) => void;
}

export interface HeldOutComparison {
  start: CountsWithRates;
  trained: CountsWithRates;
  /** The trained policy served without its show gate (null when the gate was off or never fitted). */
  trained_no_gate: CountsWithRates | null;
  trained_version: number;
  /** trained / start acceptance of shown suggestions; null when the start model had none accepted or shown. */
  acceptance_ratio: number | null;
  acceptance_fisher_p: number;
  accepted_per_request_ratio: number | null;
  accepted_per_request_fisher_p: number;
}

export interface ExperimentResult {
  user: SimUserName;
  form: PromptForm;
  events: number;
  train: SimulationSummary;
  /** The show gate at the end of training (status().gate): what the trained policy is measured with. */
  gate: OnlineStatus['gate'];
  heldout: HeldOutComparison;
}

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

export async function runOnlineExperiment(o: ExperimentOptions): Promise<ExperimentResult> {
  const say = o.log ?? (() => undefined);
  const user = simUser(o.user);
  const sim = { token: 'test-token', project: 'test-project', countTokens: o.countTokens, user, form: o.form, fileOf: o.fileOf, seed: o.seed ?? 0, log: say };

  const config = parseOnlineConfig({
    abFraction: 0,
    ...o.config,
    model: o.model,
    stateDir: o.stateDir,
    completion: { ...o.config?.completion, port: 0 },
    feedback: { ...o.config?.feedback, port: 0, tokens: ['test-token'], projects: ['test-project'] },
  });
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
    });
    await service.idle();
    gate = service.status().gate;
  } finally {
    await service.close(); // writes the checkpoint of the last version
  }
  const newest = listCheckpoints(o.stateDir)[0];
  // Without a single update the comparison would be the start model against itself: an error, not a 1.00x result.
  if (!newest) throw new Error(`online experiment: ${o.events} training requests produced no policy update (every update failed or was discarded: see the [online] lines above)`);

  const evaluate = async (model: string, gateEnabled = o.config?.gate?.enabled ?? true): Promise<CountsWithRates> => {
    // The training service's completion settings, except the exploration floor: held out, requests are served as asked.
    const { service: s, stop } = await startMeasuringService(model, { ...o.config?.completion, temperatureFloor: 0 }, { ...o.config?.gate, enabled: gateEnabled });
    try {
      const r = await runSimulation({ ...sim, examples: o.heldOut, events: o.heldOut.length, completionUrl: `${s.completionUrl}/v1/completions`, feedbackUrl: null, reportEvery: 0 });
      return r.totals;
    } finally {
      await stop();
    }
  };
  const start = await evaluate(o.model);
  const trained = await evaluate(newest.dir);
  // What the policy update alone did: the trained policy with its gate switched off (an ablation, no test).
  const trainedNoGate = gate.active ? await evaluate(newest.dir, false) : null;
  const fisher = (a: number, n: number, c: number, m: number) => fisherExact(a, n - a, c, m - c);
  return {
    user: o.user,
    form: o.form,
    events: o.events,
    train,
    gate,
    heldout: {
      start,
      trained,
      trained_no_gate: trainedNoGate,
      trained_version: newest.version,
      acceptance_ratio: ratio(trained.acceptance_rate, start.acceptance_rate),
      acceptance_fisher_p: fisher(trained.accepted, trained.shown, start.accepted, start.shown),
      accepted_per_request_ratio: ratio(trained.accepted_per_request, start.accepted_per_request),
      accepted_per_request_fisher_p: fisher(trained.accepted, trained.requests, start.accepted, start.requests),
    },
  };
}
