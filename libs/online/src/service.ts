// The online service: both servers, the feedback log and the trainer, wired together from the online libs.
//
//   completion server ──served record──> stats, <stateDir>/requests.jsonl, silent samples -> feedback log
//     (online-serving)
//   feedback server ──outcome──> credentials removed (scrub.ts) -> feedback log (fsync) -> stats -> trainer (every
//     (online-feedback)          `batchSize` pending events)
//                   (upstream Continue's dev-data event or the fork's outcome: one record; level noCode is stored with
//                    skip 'noCode' and never trained on; other event types are only counted)
//   trainer ──new weights──> generation thread (online-serving generation-thread.ts: the served models; swapped in
//     (online-learning, a thread of its own: training-thread.ts)   between decoding steps), checkpoint every K updates,
//                            <stateDir>/metrics.jsonl, one log line per update
// This thread only answers requests and keeps the books: decoding, training and the show gate's refits (online-gate)
// run in threads of their own, so no compute holds up an acknowledgement or a status call.
//
// The feedback server also serves the live page (GET /, online-page live-page.ts) and its series
// (GET /api/training/history), from a bounded in-memory history (online-page history.ts) of the same records.
// <stateDir> holds everything a run owns (two services with different state dirs share nothing):
//   feedback.jsonl   durable feedback log (online-feedback)     requests.jsonl  one line per served completion
//   metrics.jsonl    one line per update                        checkpoints/    policy checkpoints (online-learning)
// On start the newest checkpoint (if any) is the policy; untrained feedback is replayed; statistics are rebuilt.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { FastifyInstance } from 'fastify';
import { initBackend } from '@rlhf-code/backend';
import { checkpointAt, type Checkpoint } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { AutocompleteOutcome } from '@rlhf-code/continue';
import { ArmRouter, parseOnlineConfig, readJsonLines, type OnlineConfig, type OnlineConfigInput, type OnlineStatus, type ServedRecord } from '@rlhf-code/online-core';
import {
  AcceptanceCounts,
  buildFeedbackServer,
  FeedbackLog,
  scrubOutcome,
  ServedIndex,
  type LoggedEvent,
  type PostedOutcome,
  type ServedRef,
  type SkipReason,
  type SubmitResult,
} from '@rlhf-code/online-feedback';
import { GateFitThread, gateFeatures, loadGateModel, ShowGate, type GateModel } from '@rlhf-code/online-gate';
import { listCheckpoints, loadOnlineState, TrainingThread, type TrainingWorker, type UpdateMetrics } from '@rlhf-code/online-learning';
import { LivePage, RunHistory } from '@rlhf-code/online-page';
import { buildCompletionServer, GenerationThread, type GateChoice, type Generator } from '@rlhf-code/online-serving';

export interface StartOptions {
  /** One line per update and lifecycle messages; default: stdout. */
  log?: (line: string) => void;
  /**
   * Serve this checkpoint folder (with its gate.json) as the policy, at this version, when the state dir has none of
   * its own (a measurement of another run's policy: nothing of its training state, the optimizer's, is loaded).
   */
  policy?: { dir: string; version: number };
  /** No training (a service that only serves, for measuring): no training thread is started. */
  noTraining?: boolean;
  /** The script of the training thread (default the real trainer; tests give a fake that speaks its messages). */
  trainingWorker?: TrainingWorker;
  /** config.model as the caller checked it (checkpointAt); default: checked here, as --model. */
  start?: Checkpoint<'causal-lm'>;
}

const fmt = (x: number | null, digits = 4) => (x === null || !Number.isFinite(x) ? String(x) : x.toFixed(digits));

/** What an OnlineService is made of, loaded by startOnlineService. */
interface Parts {
  config: OnlineConfig;
  say: (line: string) => void;
  tokenizer: Tokenizer;
  /** The served models, in a thread of their own. */
  generator: Generator;
  /** The trainer, in a thread of its own (null: a service that only serves). */
  training: TrainingThread | null;
  version: number;
  resumed: Awaited<ReturnType<typeof loadOnlineState>> | null;
  log: FeedbackLog;
  /** A fitted gate the served folder came with (its gate.json), or null. */
  gate: GateModel | null;
}

/**
 * The running service: both servers, the feedback log, the statistics, the served-completion index and the trainer.
 * One training loop (`trainWhileDue`) runs whenever `batchSize` events are pending; everything else answers requests.
 */
export class OnlineService {
  readonly completionServer: FastifyInstance;
  readonly feedbackServer: FastifyInstance;
  /** Decodes the completions on the served models (a thread of its own); its versions are the policy's. */
  readonly generator: Generator;
  /** The trainer, in a thread of its own (libs/online-learning training-thread.ts); null when the service only serves. */
  readonly trainer: TrainingThread | null;
  readonly log: FeedbackLog;
  readonly tokenizer: Tokenizer;
  readonly gate: ShowGate;
  completionUrl = '';
  feedbackUrl = '';

  private readonly config: OnlineConfig;
  private readonly say: (line: string) => void;
  private readonly stats: AcceptanceCounts;
  /** The series of the live page (bounded, in memory; rebuilt from the logs on a restart). */
  private readonly history: RunHistory;
  private readonly page: LivePage;
  /** The A/B arms (config `arms`, else the default two by abFraction) and how requests are routed to them. */
  private readonly router: ArmRouter;
  /** Which completion an outcome is about (in memory: the prompts are the user's code). */
  private readonly servedIndex = new ServedIndex();
  /** Prompts of recent requests (training.objective user-rm / both: the RL steps' cursor positions; in memory only). */
  private readonly recentPrompts: string[] = [];
  private readonly requestsLog: fs.WriteStream;
  /** metrics.jsonl: one line per update, appended synchronously so a reader after idle() sees every update. */
  private readonly metricsFile: string;
  private readonly secrets: string[];
  /** Where the show gate's refits run (a thread of their own, started with the first). */
  private readonly gateFits = new GateFitThread();
  private updates: number;
  private discardedUpdates = 0;
  private shed = 0;
  private lastCheckpointVersion: number;
  /** The folder of the checkpoint this process wrote last (null: none yet). */
  private lastCheckpointDir: string | null = null;
  private lastError: string | null = null;
  private readonly lastLosses: OnlineStatus['last_losses'] = [];
  private loop: Promise<void> | null = null;
  private closing = false;
  private closed: Promise<void> | null = null;

  constructor(p: Parts) {
    const { config } = p;
    this.config = config;
    this.say = p.say;
    this.tokenizer = p.tokenizer;
    this.log = p.log;
    this.router = new ArmRouter(config.arms ?? config.abFraction, config.seed, config.routing);
    this.stats = new AcceptanceCounts(this.router.arms);
    this.history = new RunHistory((arm) => this.router.modelOf(arm));
    const requestsFile = path.join(config.stateDir, 'requests.jsonl');
    const metricsFile = path.join(config.stateDir, 'metrics.jsonl');
    for (const r of readJsonLines(requestsFile)) {
      this.stats.recordServed(r as ServedRecord);
      this.history.recordServed(r as ServedRecord);
    }
    for (const e of p.log.all()) {
      this.stats.recordOutcome(e);
      this.history.recordOutcome(e);
    }
    for (const m of readJsonLines(metricsFile)) this.history.recordUpdate(m as Record<string, unknown>);
    this.requestsLog = fs.createWriteStream(requestsFile, { flags: 'a' });
    this.metricsFile = metricsFile;
    this.trainer = p.training;
    this.generator = p.generator;
    this.gate = new ShowGate(config.gate, { stateDir: config.stateDir, initial: p.gate, seed: config.seed, warn: p.say, fitThread: this.gateFits });
    this.updates = p.resumed?.state.updates ?? 0;
    this.lastCheckpointVersion = p.version;
    this.secrets = [...config.feedback.tokens, ...config.completion.apiKeys];
    this.completionServer = buildCompletionServer({
      config: config.completion,
      tokenizer: p.tokenizer,
      generator: this.generator,
      router: this.router,
      seed: config.seed,
      onServed: (rec, prompt, text, logprobs) => this.onServed(rec, prompt, text, logprobs),
      gate: {
        active: () => this.gate.active,
        candidates: () => ({ n: this.config.gate.candidates, temperature: this.config.gate.candidateTemperature }),
        choose: (groups, how) => this.choose(groups, how),
      },
      onShed: () => (this.shed += 1),
      trainedMinTokens: config.training.objective === 'outcome' ? null : config.training.userRm.minTokens,
    });
    this.page = new LivePage({ status: () => this.status(), history: this.history });
    this.feedbackServer = buildFeedbackServer({
      config: config.feedback,
      status: () => this.status(),
      page: this.page,
      submit: (posted) => this.submit(posted),
      ignored: (name) => this.stats.recordIgnoredEvent(name),
    });
  }

  /** Listen on both ports, then train on whatever the log still holds. */
  async listen(): Promise<void> {
    const c = this.config;
    this.completionUrl = await this.completionServer.listen({ port: c.completion.port, host: c.completion.host });
    try {
      this.feedbackUrl = await this.feedbackServer.listen({ port: c.feedback.port, host: c.feedback.host });
    } catch (e) {
      await this.completionServer.close();
      throw e;
    }
    if (c.feedback.tokens.length === 0) this.say('[online] warning: feedback.tokens is empty: anyone can post feedback');
    this.say(
      `[online] completions on ${this.completionUrl}/v1 (model "${c.completion.modelName}", policy v${this.generator.version}); ` +
        `feedback on ${this.feedbackUrl}/api/training/submit`,
    );
    const pending = this.log.counts().pending;
    if (pending > 0) this.say(`[online] replaying ${pending} untrained feedback event(s) from ${this.log.file}`);
    this.maybeTrain();
  }

  status(): OnlineStatus {
    const c = this.log.counts();
    return {
      policy_version: this.generator.latestVersion,
      model: this.config.model,
      events_received: c.received,
      events_trained: c.trained,
      events_pending: c.pending,
      events_skipped: c.skipped,
      events_discarded: c.discarded,
      duplicates: c.duplicates,
      updates: this.updates,
      discarded_updates: this.discardedUpdates,
      training: this.loop !== null,
      backlog: this.backlog(c.pending),
      completions_shed: this.shed,
      batch_size: this.config.training.batchSize,
      ab_fraction: this.config.abFraction,
      acceptance_by_version: this.stats.acceptanceByVersion(),
      acceptance_by_arm: this.stats.acceptanceByArm(),
      unmatched_outcomes: this.stats.unmatchedOutcomes,
      upstream: this.stats.upstreamCounts(),
      last_losses: this.lastLosses.slice(),
      last_error: this.lastError,
      gate: this.gate.status(),
    };
  }

  private backlog(pending: number): OnlineStatus['backlog'] {
    const oldest = pending > 0 ? this.log.pending(1)[0] : null;
    const age = oldest ? (Date.now() - Date.parse(oldest.received)) / 1000 : null;
    return { events: pending, updates: Math.floor(pending / this.config.training.batchSize), oldest_s: age === null || !Number.isFinite(age) ? null : Math.round(age * 10) / 10 };
  }

  /** Resolves when no update is running or due. */
  async idle(): Promise<void> {
    while (this.loop) await this.loop;
  }

  /** Stop both servers, finish the running update, write a checkpoint, flush and close the logs. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      await Promise.all([this.completionServer.close(), this.feedbackServer.close()]);
      await this.idle();
      await this.gate.ready(); // the last checkpoint carries the gate fitted on every outcome
      if (this.generator.latestVersion !== this.lastCheckpointVersion) await this.checkpoint();
      else if (this.lastCheckpointDir) this.gate.save(this.lastCheckpointDir); // refitted since (refits run in their own thread)
      await this.log.close();
      await this.gate.close();
      await this.gateFits.close();
      const end = (s: fs.WriteStream) => new Promise<void>((resolve) => s.end(resolve));
      await Promise.all([end(this.requestsLog), this.page.close()]);
      await this.trainer?.close();
      await this.generator.close();
    })();
    return this.closed;
  }

  /** Why an event is never trained on (it still counts in the statistics), or null. */
  private skipOf(outcome: AutocompleteOutcome, served: ServedRef | null): SkipReason | null {
    const t = this.config.training;
    if (t.skipCacheHits && outcome.cacheHit === true) return 'cacheHit';
    if (served === null) return 'unmatched'; // which model wrote it is unknown: never credited to (or trained into) the policy
    return this.router.modelOf(served.arm) === 'start' && !t.trainOnStartArm ? 'startArm' : null;
  }

  /**
   * A served completion: counted, remembered for its outcome, logged; a policy suggestion's gate features are
   * computed (when the gate did not already); a blank one is the server's own silent sample, unless the gate hid it.
   * (The gate learns from the suggestions of the arms the policy serves.)
   */
  private async onServed(rec: ServedRecord, prompt: string, text: string, logprobs: readonly number[]): Promise<void> {
    this.stats.recordServed(rec);
    this.history.recordServed(rec, { active: this.gate.active, threshold: this.gate.model?.threshold ?? null });
    this.servedIndex.remember(rec, prompt, text);
    if (this.config.training.objective !== 'outcome' && this.recentPrompts[this.recentPrompts.length - 1] !== prompt) {
      if (this.recentPrompts.push(prompt) > this.config.training.userRm.recentPositions) this.recentPrompts.shift();
    }
    this.requestsLog.write(JSON.stringify(rec) + '\n');
    if (this.config.gate.enabled && this.router.modelOf(rec.arm) === 'policy' && !rec.blank && !this.gate.has(rec.id)) {
      const features = gateFeatures([{ prompt, text, tokens: rec.completionTokens, endedByModel: rec.endedByModel, logprobs }]).then((f) => f[0]);
      features.then((x) => this.gate.noteServed(x)).catch(() => undefined); // a failed check: observe drops its outcome
      this.gate.remember(rec.id, features);
    }
    if (!rec.blank || rec.gated || this.closing || rec.finishReason === 'abort') return;
    // Stayed silent: Continue shows and reports nothing, so the server records the sample itself (reward 0).
    const outcome: AutocompleteOutcome = { completionId: rec.id, prompt, completion: '', accepted: false };
    const served: ServedRef = { id: rec.id, version: rec.version, arm: rec.arm, typed: 0, eos: rec.endedByModel && text === '' };
    await this.record({ received: rec.time, source: 'server', served, skip: this.skipOf(outcome, served), outcome });
  }

  /**
   * The gate's choice among each group of candidates (one choice's samples): the non-blank one it rates most likely to
   * be accepted (`rank`; a group holds one candidate otherwise), then, with `hide`, its verdict on that one (null:
   * hidden). Shown ones' features are kept for their outcomes.
   */
  private async choose(groups: GateChoice[][], how: { rank: boolean; hide: boolean }): Promise<(number | null)[]> {
    let features: number[][];
    try {
      features = await gateFeatures(groups.flat());
    } catch (e) {
      this.say(`[online] gate: features failed, showing the first candidate: ${(e as Error).message}`);
      return groups.map(() => 0); // fail open: a broken sandbox must not silence the server
    }
    let at = 0;
    return groups.map((group) => {
      const xs = features.slice(at, (at += group.length));
      const rated = group.map((c, j) => ({ j, p: c.text.trim() === '' ? -1 : (this.gate.probability(xs[j]) ?? 0) }));
      const best = rated.reduce((a, b) => (b.p > a.p ? b : a));
      if (best.p < 0) return 0; // all blank: the first, sent as it is
      if (!how.hide) {
        this.gate.noteServed(xs[best.j]);
        this.gate.remember(group[best.j].id, xs[best.j]);
        return best.j;
      }
      const d = this.gate.decide(xs[best.j]);
      if (this.gate.active) this.history.noteGate(group[best.j].id, d);
      if (d.show) this.gate.remember(group[best.j].id, xs[best.j]); // a hidden one gets no outcome
      return d.show ? best.j : null;
    });
  }

  /**
   * A client's outcome: credentials (the configured ones and the request's own) removed before anything is stored or
   * logged, matched, recorded. One without code (upstream level noCode) is stored as skipped: counted, never trained.
   */
  private submit(posted: PostedOutcome): Promise<SubmitResult> {
    const secrets = [...this.secrets, ...posted.secrets];
    const e = { received: new Date().toISOString(), source: 'continue' as const, via: posted.via, project: posted.project };
    if (posted.noCode) return this.record({ ...e, served: null, skip: 'noCode', outcome: scrubOutcome(posted.outcome, secrets) });
    const outcome = scrubOutcome(posted.outcome, secrets);
    const served = this.servedIndex.match(outcome.prompt, outcome.completion);
    if (served && this.router.modelOf(served.arm) === 'policy' && outcome.cacheHit !== true) {
      this.gate.observe(served.id, outcome.accepted).catch((err) => this.say(`[online] gate: outcome of ${served.id} dropped: ${(err as Error).message}`));
    }
    return this.record({ ...e, served, skip: this.skipOf(outcome, served), outcome });
  }

  private async record(e: Omit<LoggedEvent, 'type' | 'seq'>): Promise<SubmitResult> {
    const r = await this.log.addEvent(e);
    if (!r.duplicate) {
      this.stats.recordOutcome({ ...e, type: 'event', seq: r.seq });
      this.history.recordOutcome({ ...e, type: 'event', seq: r.seq });
    }
    this.maybeTrain();
    return { duplicate: r.duplicate, queuePosition: this.log.counts().pending };
  }

  /** Start the training loop when a batch is due and it is not running. */
  private maybeTrain(): void {
    if (this.loop || this.closing || !this.trainer || this.log.counts().pending < this.config.training.batchSize) return;
    this.loop = this.trainWhileDue()
      .catch((e) => {
        this.lastError = (e as Error).message;
        process.stderr.write(`[online] update failed (its events stay pending): ${(e as Error).stack ?? e}\n`);
      })
      .finally(() => {
        this.loop = null;
      });
  }

  /** The one training loop: an update per `batchSize` pending events, until fewer are pending. */
  private async trainWhileDue(): Promise<void> {
    const t = this.config.training;
    while (!this.closing) {
      if (this.log.counts().pending < t.batchSize) return;
      const batch = this.log.pending(t.batchSize); // the oldest first (the rest wait on disk)
      const seqs = batch.map((e) => e.seq);
      const { weights, metrics } = await this.trainer!.update(batch, t.objective === 'outcome' ? undefined : this.recentPrompts.slice());
      if (weights) {
        const v = this.generator.publish(weights);
        await this.log.markConsumed(seqs, v);
        this.report(metrics, v);
        if (this.updates % t.checkpointEvery === 0) await this.checkpoint();
      } else {
        await this.log.markConsumed(seqs, null, metrics.discarded ?? 'unknown');
        this.report(metrics, null);
      }
    }
  }

  private async checkpoint(): Promise<void> {
    if (!this.trainer) return;
    const state = { policy_version: this.generator.latestVersion, updates: this.updates, start_model: path.resolve(this.config.model) };
    const dir = await this.trainer.checkpoint(state); // the trainer's thread saves its weights and optimizer
    this.gate.save(dir);
    this.lastCheckpointVersion = state.policy_version;
    this.lastCheckpointDir = dir;
    this.say(`[online] checkpoint ${dir}`);
  }

  private report(m: UpdateMetrics, newVersion: number | null): void {
    this.updates += newVersion === null ? 0 : 1;
    if (newVersion === null) this.discardedUpdates += 1;
    const step = this.updates + this.discardedUpdates;
    const line = { step, policy_version: newVersion ?? this.generator.latestVersion, time: new Date().toISOString(), ...m };
    fs.appendFileSync(this.metricsFile, JSON.stringify(line) + '\n');
    this.history.recordUpdate(line);
    this.lastLosses.push({ update: step, policy_version: newVersion, loss: m.loss, kl: m.kl, clipfrac: m.clipfrac, reward_mean: m.reward_mean, discarded: m.discarded });
    if (this.lastLosses.length > 10) this.lastLosses.shift();
    this.say(
      `[online] update ${step} ${newVersion === null ? `DISCARDED (${m.discarded}), still v${this.generator.latestVersion}` : `-> v${newVersion}`}: ` +
        `${m.events} events (${m.accepted} accepted, ${m.rejected} rejected, ${m.silent} silent), reward ${fmt(m.reward_mean, 3)}, ` +
        `loss ${fmt(m.loss)}, kl ${fmt(m.kl, 5)}, clipfrac ${fmt(m.clipfrac, 3)}, grad ${fmt(m.grad_norm, 3)}, ${m.duration_s.toFixed(1)}s`,
    );
  }
}

/**
 * Load the models (the newest checkpoint of the state dir, if any, is the policy; else `opts.policy`, else the starting
 * model), replay the logs, listen.
 */
export async function startOnlineService(config: OnlineConfig, opts: StartOptions = {}): Promise<OnlineService> {
  const say = opts.log ?? ((line: string) => process.stdout.write(line + '\n'));
  const start = opts.start ?? checkpointAt(config.model, '--model'); // a checkpoint or a LoRA adapter folder (its base plus the adapter)
  fs.mkdirSync(config.stateDir, { recursive: true });
  // Models: the frozen start (A/B control and KL reference), the trainable policy, the served copy of it.
  const latest = listCheckpoints(config.stateDir)[0];
  const resumed = latest ? await loadOnlineState(latest.dir) : null;
  const policyDir = latest?.dir ?? opts.policy?.dir ?? null;
  const version = resumed?.state.policy_version ?? (latest ? 0 : (opts.policy?.version ?? 0));
  // The served models in the generation thread, the trainer's in the training thread (loaded side by side).
  const backend = (await initBackend({ quiet: true })).kind;
  const [generation, training] = await Promise.allSettled([
    GenerationThread.start({ config, policyDir, version, backend }),
    opts.noTraining ? Promise.resolve(null) : TrainingThread.start({ config, policyDir, resume: resumed !== null, backend }, opts.trainingWorker),
  ]);
  if (generation.status === 'rejected' || training.status === 'rejected') {
    if (generation.status === 'fulfilled') await generation.value.close();
    if (training.status === 'fulfilled') await training.value?.close();
    throw generation.status === 'rejected' ? generation.reason : (training as PromiseRejectedResult).reason;
  }
  const tokenizer = start.tokenizer();
  if (resumed) say(`[online] resuming policy version ${version} from ${latest!.dir}`);
  else if (policyDir) say(`[online] serving policy version ${version} from ${policyDir}`);
  const log = await FeedbackLog.open(path.join(config.stateDir, 'feedback.jsonl'), version);
  const gate = loadGateModel(policyDir ?? config.model, say);
  const service = new OnlineService({ config, say, tokenizer, generator: generation.value, training: training.value, version, resumed, log, gate });
  await service.listen();
  return service;
}

/**
 * A service that only serves, for measuring: `model` on free ports, no training, state in a temporary folder removed by
 * the returned `stop()`. By default one arm, the policy, which is `model` itself; `ab.policy` serves another run's
 * checkpoint as the policy (`model` is then the start model), `ab.arms` and `ab.routing` set the arms; `ab.training`
 * holds the served models as a training service would (a LoRA adapter on a base in `baseDtype`), nothing trains;
 * `ab.engine` is what decodes (online serve's --engine and --engine-weights).
 */
/** What decodes a measuring service's suggestions: online serve's engine settings. */
export type EngineChoice = Pick<OnlineConfigInput, 'engine' | 'engineWeights'>;

export async function startMeasuringService(
  model: string,
  completion: OnlineConfigInput['completion'] = {},
  gate: OnlineConfigInput['gate'] = {},
  ab: { policy?: StartOptions['policy']; arms?: OnlineConfigInput['arms']; routing?: OnlineConfigInput['routing']; training?: OnlineConfigInput['training']; engine?: EngineChoice } = {},
): Promise<{ service: OnlineService; stop: () => Promise<void> }> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'online-measure-'));
  const config = parseOnlineConfig({
    model,
    stateDir,
    abFraction: 0,
    arms: ab.arms,
    routing: ab.routing,
    ...ab.engine,
    completion: { ...completion, port: 0 },
    feedback: { port: 0 },
    training: { ...ab.training, batchSize: 1_000_000 },
    gate: { ...gate, explore: 0 }, // the folder's gate.json as it is: no exploring (and no outcomes to refit on)
  });
  const service = await startOnlineService(config, { log: () => undefined, policy: ab.policy, noTraining: true });
  return {
    service,
    stop: async () => {
      await service.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
