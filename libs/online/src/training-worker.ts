// The online trainer in a worker thread of its own (started by training-thread.ts): an update runs for seconds, and
// on the HTTP thread it would hold up every feedback acknowledgement and status call meanwhile. This thread loads the
// trainable policy and its KL reference (online-models.ts, role `train`), resumes the optimizer from the state dir's
// checkpoint, and answers the HTTP thread's requests one at a time, in order:
//   {id, op: 'update', events}      -> {id, ok: true, value: UpdateResult}   (the new weights as a host copy)
//   {id, op: 'checkpoint', state}   -> {id, ok: true, value: dir}            (saveOnlineCheckpoint: weights, optimizer)
//   {id, op: 'close'}               -> {id, ok: true}                        (everything disposed)
//   a failure                       -> {id, ok: false, error}
// It posts {op: 'ready'} once loaded, or {op: 'failed', error} when it cannot load.
import * as os from 'os';
import { parentPort } from 'worker_threads';
import { initBackend } from '@rlhf-code/backend';
import { loadOnlineModels } from './online-models';
import { OnlineTrainer } from './online-trainer';
import { loadOnlineState, saveOnlineCheckpoint } from './policy-checkpoints';
import { serveCalls, threadData } from './thread-calls';
import { TRAINING_NICENESS, type TrainingRequest, type TrainingWorkerData } from './training-thread';

async function main(port: NonNullable<typeof parentPort>, d: TrainingWorkerData): Promise<void> {
  const { config } = d;
  // This thread yields the cores to the HTTP thread (Linux niceness is per thread): acknowledgements, status calls and
  // decoding steps come first; training takes what is left, and the status' backlog says how far behind it is.
  os.setPriority(TRAINING_NICENESS);
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

  const handle = async (m: TrainingRequest): Promise<unknown> => {
    if (m.op === 'update') return trainer.update(m.events);
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
    for (const model of models.owned) model.dispose();
    return undefined;
  };
  serveCalls(port, handle); // one request at a time, in the order they came (an update, then the checkpoint after it)
}

if (parentPort) {
  const port = parentPort;
  main(port, threadData<TrainingWorkerData>()).catch((e) => port.postMessage({ op: 'failed', error: (e as Error).message }));
}
