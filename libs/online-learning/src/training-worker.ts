// The online trainer in a worker thread of its own (started by training-thread.ts): an update runs for seconds, and
// on the HTTP thread it would hold up every feedback acknowledgement and status call meanwhile. This thread loads the
// trainable policy and its KL reference (libs/online-core online-models.ts, role `train`), resumes the optimizer from the state dir's
// checkpoint, and answers the HTTP thread's requests one at a time, in order:
//   {id, op: 'update', events, positions?} -> {id, ok: true, value: UpdateResult}   (the new weights as a host copy)
//       by training.objective: outcome = the clipped update on the events' own outcomes (online-trainer.ts);
//       user-rm = the events refit the reward model of the user (user-reward-model.ts), then training.userRm.steps
//       GRPO steps against it on positions drawn from `positions` (user-rm-rl.ts; none until it is first fitted:
//       the update is then reported discarded 'no-rm'); both = the outcome update, then the RL steps
//   {id, op: 'checkpoint', state}   -> {id, ok: true, value: dir}            (saveOnlineCheckpoint: weights, optimizer)
//   {id, op: 'close'}               -> {id, ok: true}                        (everything disposed)
//   a failure                       -> {id, ok: false, error}
// It posts {op: 'ready'} once loaded, or {op: 'failed', error} when it cannot load.
import * as os from 'os';
import { parentPort } from 'worker_threads';
import { initBackend } from '@rlhf-code/backend';
import { COMPUTE_NICENESS, loadOnlineModels, serveCalls, threadData } from '@rlhf-code/online-core';
import type { TrainableEvent } from '@rlhf-code/online-feedback';
import { OnlineTrainer, outcomeCounts } from './online-trainer';
import { UserRmRl } from './user-rm-rl';
import { loadOnlineState, saveOnlineCheckpoint } from './policy-checkpoints';
import type { TrainingRequest, TrainingWorkerData } from './training-thread';
import type { UpdateResult } from './update-metrics';

async function main(port: NonNullable<typeof parentPort>, d: TrainingWorkerData): Promise<void> {
  const { config } = d;
  // This thread yields the cores to the HTTP thread (Linux niceness is per thread): acknowledgements, status calls and
  // decoding steps come first; training takes what is left, and the status' backlog says how far behind it is.
  os.setPriority(COMPUTE_NICENESS);
  await initBackend({ backend: d.backend, quiet: true });
  const resumed = d.resume && d.policyDir ? await loadOnlineState(d.policyDir) : null;
  const models = await loadOnlineModels(config, d.policyDir, 'train');
  const trainer = new OnlineTrainer({
    model: models.policy,
    reference: models.start,
    tokenizer: models.tokenizer,
    config: config.training,
    repoContext: config.completion.repoContext,
    maxPromptTokens: config.completion.maxPromptTokens,
    baseline: resumed?.state.baseline,
  });
  if (resumed) trainer.trainer.optimizer.setState(resumed.optimizer, models.policy.trainableParams());
  const objective = config.training.objective;
  const rl = objective === 'outcome' ? null : new UserRmRl({ policy: models.policy, start: models.start, tokenizer: models.tokenizer, config, trainer });

  /** objective user-rm / both: the reward model learns from the events, then the RL steps run against it. */
  const updateAgainstRm = async (rl: UserRmRl, events: TrainableEvent[], positions: string[]): Promise<UpdateResult> => {
    const t0 = Date.now();
    await rl.observe(events, positions);
    const outcome = objective === 'both' ? await trainer.update(events) : null;
    const { weights, steps } = rl.ready ? await rl.run(positions) : { weights: null, steps: [] };
    const last = steps[steps.length - 1];
    const published = weights ?? outcome?.weights ?? null;
    const base = outcome?.metrics ?? {
      ...outcomeCounts(events),
      reward_mean: last?.reward_mean ?? 0,
      baseline: 0,
      tokens: steps.reduce((n, s) => n + s.tokens, 0),
      loss: last?.loss ?? 0,
      clipfrac: 0,
      kl: last?.kl ?? NaN,
      kl_ref: last?.kl_ref ?? null,
      grad_norm: last?.grad_norm ?? 0,
      lr: config.training.userRm.lr,
      optimizer_steps: steps.filter((s) => s.discarded === null).length,
      discarded: null,
      duration_s: 0,
    };
    const discarded = published ? null : (outcome?.metrics.discarded ?? steps.find((s) => s.discarded)?.discarded ?? 'no-rm');
    return { weights: published, metrics: { ...base, discarded, duration_s: (Date.now() - t0) / 1000, rm: rl.rm.report(), rl: steps, hindsight: rl.hindsightReport() } };
  };

  const handle = async (m: TrainingRequest): Promise<unknown> => {
    if (m.op === 'update') return rl ? updateAgainstRm(rl, m.events, m.positions ?? []) : trainer.update(m.events);
    if (m.op === 'checkpoint') {
      const train = models.policy;
      const weights = trainer.lastGoodWeights;
      return saveOnlineCheckpoint(config.stateDir, {
        content: train.lora
          ? { config: train.config, weights: new Map(), adapter: { config: train.lora, tensors: weights, baseModel: config.model } }
          : { config: train.config, weights },
        trainer: trainer.trainer,
        state: { ...m.state, baseline: trainer.rewards.baseline },
        tokenizerDir: config.model,
        keep: config.training.keepCheckpoints,
      });
    }
    trainer.dispose();
    rl?.dispose();
    for (const model of models.owned) model.dispose();
    return undefined;
  };
  serveCalls(port, handle); // one request at a time, in the order they came (an update, then the checkpoint after it)
}

if (parentPort) {
  const port = parentPort;
  main(port, threadData<TrainingWorkerData>()).catch((e) => port.postMessage({ op: 'failed', error: (e as Error).message }));
}
