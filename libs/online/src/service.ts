// The online service: both servers, the feedback log and the trainer, wired together.
//
//   completion server ──served record──> stats, <stateDir>/requests.jsonl, silent samples -> feedback log
//   feedback server ──outcome──> credentials removed (scrub.ts) -> feedback log (fsync) -> stats -> trainer (every `batchSize` pending events)
//   trainer ──new weights──> policy holder (swapped between decoding steps), checkpoint every K updates,
//                            <stateDir>/metrics.jsonl, one log line per update
//
// <stateDir> holds everything a run owns (two services with different state dirs share nothing):
//   feedback.jsonl   durable feedback log (feedback-log.ts)      requests.jsonl  one line per served completion
//   metrics.jsonl    one line per update                          checkpoints/    policy checkpoints (checkpoints.ts)
// On start the newest checkpoint (if any) is the policy; untrained feedback is replayed; statistics are rebuilt.
import * as fs from 'fs';
import * as path from 'path';
import type { FastifyInstance } from 'fastify';
import { Qwen2Model } from '@rlhf-code/model';
import { loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { ArmRouter } from './arms';
import { listCheckpoints, loadOnlineState, saveOnlineCheckpoint, type OnlineTrainerState } from './checkpoints';
import { buildCompletionServer } from './completion-server';
import type { OnlineConfig } from './config';
import { FeedbackLog, type LoggedEvent, type SkipReason, type ServedRef } from './feedback-log';
import { buildFeedbackServer, type SubmitResult } from './feedback-server';
import { OnlineTrainer, type UpdateMetrics } from './online-trainer';
import type { AutocompleteOutcome } from './outcome';
import { PolicyHolder } from './policy';
import { scrubOutcome } from './scrub';
import { ServedIndex } from './served-index';
import { OnlineStats, type CountsWithRates, type ServedRecord } from './stats';

export interface OnlineStatus {
  policy_version: number;
  model: string;
  events_received: number;
  events_trained: number;
  events_pending: number;
  events_skipped: number;
  events_discarded: number;
  duplicates: number;
  updates: number;
  discarded_updates: number;
  training: boolean;
  batch_size: number;
  ab_fraction: number;
  acceptance_by_version: Record<string, CountsWithRates>;
  acceptance_by_arm: Record<string, CountsWithRates>;
  /** Outcomes that matched no served completion (e.g. served before a restart, or never by this server). */
  unmatched_outcomes: number;
  last_losses: { update: number; policy_version: number | null; loss: number; kl: number; clipfrac: number; reward_mean: number; discarded: string | null }[];
  last_error: string | null;
}

export interface OnlineService {
  readonly completionUrl: string;
  readonly feedbackUrl: string;
  readonly completionServer: FastifyInstance;
  readonly feedbackServer: FastifyInstance;
  readonly policy: PolicyHolder;
  readonly trainer: OnlineTrainer;
  readonly log: FeedbackLog;
  readonly tokenizer: Tokenizer;
  status(): OnlineStatus;
  /** Resolves when no update is running or due. */
  idle(): Promise<void>;
  /** Stop both servers, finish the running update, write a checkpoint, flush and close the logs. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** One line per update and lifecycle messages; default: stdout. */
  log?: (line: string) => void;
}

function readJsonLines(file: string): unknown[] {
  if (!fs.existsSync(file)) return [];
  const out: unknown[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a torn last line after a crash: this log is statistics only, so skip it
    }
  }
  return out;
}

const fmt = (x: number | null, digits = 4) => (x === null || !Number.isFinite(x) ? String(x) : x.toFixed(digits));

export async function startOnlineService(config: OnlineConfig, opts: StartOptions = {}): Promise<OnlineService> {
  const say = opts.log ?? ((line: string) => process.stdout.write(line + '\n'));
  const stateDir = config.stateDir;
  fs.mkdirSync(stateDir, { recursive: true });
  const tokenizer = loadTokenizer(config.model);

  // Models: the frozen start (A/B control and KL reference), the trainable policy, the served copy of it.
  const start = await Qwen2Model.load(config.model, { trainable: false });
  if (tokenizer.vocabSize > start.config.vocab_size) {
    throw new Error(`${config.model}: its tokenizer has ${tokenizer.vocabSize} tokens, more than the model's ${start.config.vocab_size}`);
  }
  const latest = listCheckpoints(stateDir)[0];
  const policyDir = latest?.dir ?? config.model;
  const resumed = latest ? await loadOnlineState(latest.dir) : null;
  const version = resumed?.state.policy_version ?? 0;
  const trainModel = await Qwen2Model.load(policyDir, { trainable: true });
  const served = await Qwen2Model.load(policyDir, { trainable: false });
  if (resumed) say(`[online] resuming policy version ${version} from ${latest!.dir}`);

  const log = await FeedbackLog.open(path.join(stateDir, 'feedback.jsonl'), version);
  const stats = new OnlineStats();
  const servedIndex = new ServedIndex(); // which completion an outcome is about (in memory: the prompts are the user's code)
  const requestsFile = path.join(stateDir, 'requests.jsonl');
  for (const r of readJsonLines(requestsFile)) stats.recordServed(r as ServedRecord);
  for (const e of log.all()) stats.recordOutcome(e);
  const requestsLog = fs.createWriteStream(requestsFile, { flags: 'a' });
  const metricsLog = fs.createWriteStream(path.join(stateDir, 'metrics.jsonl'), { flags: 'a' });

  const trainer = new OnlineTrainer({
    model: trainModel,
    reference: start,
    tokenizer,
    config: config.training,
    repoContext: config.completion.repoContext,
    maxPromptTokens: config.completion.maxPromptTokens,
    baseline: resumed?.state.baseline,
  });
  if (resumed) trainer.trainer.optimizer.setState(resumed.optimizer, trainModel.params);
  const policy = new PolicyHolder(served, version);
  const router = new ArmRouter(config.abFraction, config.seed);
  const t = config.training;
  const secrets = [...config.feedback.tokens, ...config.completion.apiKeys];

  let updates = resumed?.state.updates ?? 0;
  let lastCheckpointVersion = version;
  let discardedUpdates = 0;
  let lastError: string | null = null;
  const lastLosses: OnlineStatus['last_losses'] = [];
  let loop: Promise<void> | null = null;
  let closing = false;

  const skipOf = (outcome: AutocompleteOutcome, served: ServedRef | null): SkipReason | null =>
    t.skipCacheHits && outcome.cacheHit === true
      ? 'cacheHit'
      : served === null
        ? 'unmatched' // which model wrote it is unknown: never credited to (or trained into) the policy
        : served.arm === 'start' && !t.trainOnStartArm
          ? 'startArm'
          : null;

  async function record(e: Omit<LoggedEvent, 'type' | 'seq'>): Promise<SubmitResult> {
    const r = await log.addEvent(e);
    if (!r.duplicate) stats.recordOutcome({ ...e, type: 'event', seq: r.seq });
    maybeTrain();
    return { duplicate: r.duplicate, queuePosition: log.counts().pending };
  }

  async function checkpoint(): Promise<void> {
    const state: OnlineTrainerState = { policy_version: policy.latestVersion, updates, baseline: trainer.rewards.baseline, start_model: path.resolve(config.model) };
    const dir = await saveOnlineCheckpoint(stateDir, {
      config: trainModel.config,
      weights: trainer.lastGoodWeights,
      optimizer: trainer.trainer.optimizer.getState(),
      state,
      tokenizerDir: config.model,
      keep: t.keepCheckpoints,
    });
    lastCheckpointVersion = state.policy_version;
    say(`[online] checkpoint ${dir}`);
  }

  function report(m: UpdateMetrics, newVersion: number | null): void {
    updates += newVersion === null ? 0 : 1;
    if (newVersion === null) discardedUpdates += 1;
    const line = { step: updates + discardedUpdates, policy_version: newVersion ?? policy.latestVersion, time: new Date().toISOString(), ...m };
    metricsLog.write(JSON.stringify(line) + '\n');
    lastLosses.push({ update: line.step, policy_version: newVersion, loss: m.loss, kl: m.kl, clipfrac: m.clipfrac, reward_mean: m.reward_mean, discarded: m.discarded });
    if (lastLosses.length > 10) lastLosses.shift();
    say(
      `[online] update ${line.step} ${newVersion === null ? `DISCARDED (${m.discarded}), still v${policy.latestVersion}` : `-> v${newVersion}`}: ` +
        `${m.events} events (${m.accepted} accepted, ${m.rejected} rejected, ${m.silent} silent), reward ${fmt(m.reward_mean, 3)}, ` +
        `loss ${fmt(m.loss)}, kl ${fmt(m.kl, 5)}, clipfrac ${fmt(m.clipfrac, 3)}, grad ${fmt(m.grad_norm, 3)}, ${m.duration_s.toFixed(1)}s`,
    );
  }

  async function trainWhileDue(): Promise<void> {
    while (!closing) {
      const pending = log.pending();
      if (pending.length < t.batchSize) return;
      const batch = pending.slice(0, t.batchSize);
      const seqs = batch.map((e) => e.seq);
      const { weights, metrics } = await trainer.update(batch);
      if (weights) {
        const v = policy.publish(weights);
        await log.markConsumed(seqs, v);
        report(metrics, v);
        if (updates % t.checkpointEvery === 0) await checkpoint();
      } else {
        await log.markConsumed(seqs, null, metrics.discarded ?? 'unknown');
        report(metrics, null);
      }
    }
  }

  function maybeTrain(): void {
    if (loop || closing || log.counts().pending < t.batchSize) return;
    loop = trainWhileDue()
      .catch((e) => {
        lastError = (e as Error).message;
        process.stderr.write(`[online] update failed (its events stay pending): ${(e as Error).stack ?? e}\n`);
      })
      .finally(() => {
        loop = null;
      });
  }

  const completionServer = buildCompletionServer({
    config: config.completion,
    tokenizer,
    policy,
    start,
    router,
    seed: config.seed,
    onServed: async (rec, prompt, text) => {
      stats.recordServed(rec);
      servedIndex.remember(rec, prompt, text);
      requestsLog.write(JSON.stringify(rec) + '\n');
      if (!rec.blank || closing || rec.finishReason === 'abort') return;
      // Stayed silent: Continue shows and reports nothing, so the server records the sample itself (reward 0).
      const outcome: AutocompleteOutcome = { completionId: rec.id, prompt, completion: '', accepted: false };
      const servedRef: ServedRef = { id: rec.id, version: rec.version, arm: rec.arm, typed: 0, eos: rec.endedByModel && text === '' };
      await record({ received: rec.time, source: 'server', served: servedRef, skip: skipOf(outcome, servedRef), outcome });
    },
  });

  function status(): OnlineStatus {
    const c = log.counts();
    return {
      policy_version: policy.latestVersion,
      model: config.model,
      events_received: c.received,
      events_trained: c.trained,
      events_pending: c.pending,
      events_skipped: c.skipped,
      events_discarded: c.discarded,
      duplicates: c.duplicates,
      updates,
      discarded_updates: discardedUpdates,
      training: loop !== null,
      batch_size: t.batchSize,
      ab_fraction: config.abFraction,
      acceptance_by_version: stats.acceptanceByVersion(),
      acceptance_by_arm: stats.acceptanceByArm(),
      unmatched_outcomes: stats.unmatchedOutcomes,
      last_losses: lastLosses.slice(),
      last_error: lastError,
    };
  }

  const feedbackServer = buildFeedbackServer({
    config: config.feedback,
    status,
    submit: async (posted) => {
      const outcome = scrubOutcome(posted, secrets); // before anything is stored or logged
      const ref = servedIndex.match(outcome.prompt, outcome.completion);
      return record({ received: new Date().toISOString(), source: 'continue', served: ref, skip: skipOf(outcome, ref), outcome });
    },
  });

  const completionUrl = await completionServer.listen({ port: config.completion.port, host: config.completion.host });
  let feedbackUrl: string;
  try {
    feedbackUrl = await feedbackServer.listen({ port: config.feedback.port, host: config.feedback.host });
  } catch (e) {
    await completionServer.close();
    throw e;
  }
  if (config.feedback.tokens.length === 0) say('[online] warning: feedback.tokens is empty: anyone can post feedback');
  say(`[online] completions on ${completionUrl}/v1 (model "${config.completion.modelName}", policy v${version}); feedback on ${feedbackUrl}/api/training/submit`);
  const pendingAtStart = log.counts().pending;
  if (pendingAtStart > 0) say(`[online] replaying ${pendingAtStart} untrained feedback event(s) from ${log.file}`);
  maybeTrain();

  const endStream = (s: fs.WriteStream) => new Promise<void>((resolve) => s.end(resolve));
  let closed: Promise<void> | null = null;

  return {
    completionUrl,
    feedbackUrl,
    completionServer,
    feedbackServer,
    policy,
    trainer,
    log,
    tokenizer,
    status,
    async idle() {
      while (loop) await loop;
    },
    close() {
      closed ??= (async () => {
        closing = true;
        await Promise.all([completionServer.close(), feedbackServer.close()]);
        while (loop) await loop;
        if (policy.latestVersion !== lastCheckpointVersion) await checkpoint();
        await log.close();
        await Promise.all([endStream(requestsLog), endStream(metricsLog)]);
        trainer.dispose();
        for (const m of [start, trainModel, served]) m.dispose();
      })();
      return closed;
    },
  };
}
