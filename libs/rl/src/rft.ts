// Expert iteration (rejection-sampling fine-tuning, RFT; STaR, Zelikman et al. 2022; ReST-EM, Singh et al. 2023):
// the RL algorithm whose update is supervised learning on the policy's own successes.
//
//   for round = 1..rounds:
//     1. sample `samples` responses per RL prompt from the current policy (pure sampling at `temperature`)
//     2. run each against its prompt's tests in the sandbox; keep the programs that pass every test, at most
//        `keepPerPrompt` distinct ones per prompt (so easy prompts do not crowd out hard ones)
//     3. fine-tune the current policy on them, mixed with `replayRatio` x as many rows of the SFT data (replay: the
//        trained operations are rehearsed, so the update does not trade them for the new ones)
//
// Step 3 is the SFT stage itself (runSft: loss on the response only, the same packing, optimizer and schedule), so a
// "more SFT" control that trains as many optimizer steps on the SFT data alone differs from RFT in one thing: the
// policy's own verified programs for the RL prompts. Every success counts, including prompts where every sample
// passed (GRPO's advantage is 0 there), and the update is dense at an SFT-like learning rate.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { UsageError } from '@rlhf-code/cli';
import { readPpoData, readSftData, shuffle, writeJsonl, type PpoRecord } from '@rlhf-code/data';
import { openEngine, parseEngineSpec } from '@rlhf-code/engine';
import { checkpointAt, isAdapterFolder, Qwen2Model, resumableRng } from '@rlhf-code/model';
import { SandboxPool } from '@rlhf-code/sandbox';
import { encodePrompt, loadTokenizer, stopTokenIds } from '@rlhf-code/tokenizer';
import { runSft, SftSettings } from '@rlhf-code/train';
import { execPromptOf, executionScorer } from './execution-scorer';
import { sampleResponses } from './rollout';
import { rolloutSamples } from './scorers';
import type { RftSettings } from './settings';

/** What one round did, a line of rft.jsonl in --out. */
export interface RftRound {
  round: number;
  /** The checkpoint sampled from and fine-tuned. */
  policy: string;
  prompts: number;
  samples: number;
  /** Share of samples that passed every test (at the rollout temperature). */
  pass_rate: number;
  /** Prompts with at least one passing sample. */
  prompts_solved: number;
  /** Distinct passing programs kept (<= keepPerPrompt per prompt), and the SFT rows replayed beside them. */
  kept: number;
  replayed: number;
  /** Per `group` of the prompts (the suite's sft_ops / rl_only_ops), the pass rate of the samples. */
  pass_rate_by_group?: Record<string, number>;
  optimizer_steps: number;
  time_sample_s: number;
  time_train_s: number;
}

/** A program's identity for "distinct": the same lines without trailing spaces or blank lines. */
const programKey = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .join('\n');

/**
 * The samples worth fine-tuning on: those that passed, at most `keepPerPrompt` distinct programs per prompt (by
 * programKey), in their order. A sample that did not pass is never kept, whatever else it shares.
 */
export function keepPassing<P>(samples: readonly { prompt: P; response: string; passed: boolean }[], keepPerPrompt: number): { prompt: P; response: string }[] {
  const seen = new Map<P, Set<string>>();
  const out: { prompt: P; response: string }[] = [];
  for (const s of samples) {
    if (!s.passed) continue;
    const keys = seen.get(s.prompt) ?? new Set<string>();
    seen.set(s.prompt, keys);
    const key = programKey(s.response);
    if (keys.size >= keepPerPrompt || keys.has(key)) continue;
    keys.add(key);
    out.push({ prompt: s.prompt, response: s.response });
  }
  return out;
}

/** The SFT stage's settings for one round: RFT's own SFT fields, this round's model, data and folder. */
function roundSftSettings(f: RftSettings, model: string, data: string, out: string, round: number): SftSettings {
  return SftSettings.parse({
    model,
    data,
    out,
    template: f.template,
    maxLen: f.maxLen,
    pack: f.pack,
    heldoutFraction: 0, // every verified program trains; the evaluation measures the result
    epochs: f.epochs,
    batchSize: f.batchSize,
    gradAccum: f.gradAccum,
    lr: f.lr,
    minLr: f.minLr,
    schedule: f.schedule,
    warmupSteps: f.warmupSteps,
    weightDecay: f.weightDecay,
    beta1: f.beta1,
    beta2: f.beta2,
    maxGradNorm: f.maxGradNorm,
    loraRank: f.loraRank,
    loraAlpha: f.loraAlpha,
    loraTargets: f.loraTargets,
    baseDtype: f.baseDtype,
    recomputeLayers: f.recomputeLayers,
    seed: f.seed + round - 1,
    quiet: f.quiet,
  });
}

/** Samples every prompt `samples` times from `policyDir`, scores them, and returns the kept programs and the round's figures. */
async function sampleRound(f: RftSettings, policyDir: string, records: readonly PpoRecord[], round: number, log: (line: string) => void) {
  const tok = loadTokenizer(policyDir);
  const stops = stopTokenIds(tok, f.template);
  const prompts = records.map((r, index) => ({ index, ids: encodePrompt(tok, r.prompt, f.template).slice(-f.maxPromptLen) }));
  await initBackend({ quiet: true });
  const policy = await Qwen2Model.load(policyDir, { trainable: false, baseDtype: f.baseDtype });
  // local and llamacpp open on this round's checkpoint; a server serves --model, and gets the round's policy published.
  const engine = await openEngine(f, { model: policy, tokenizer: tok, checkpointDir: policyDir, publishes: f.rounds > 1 });
  if (round > 1 && parseEngineSpec(f.engine).kind === 'openai') await engine.publish({ kind: isAdapterFolder(policyDir) ? 'adapter' : 'full', dir: policyDir }, round - 1);
  const pool = new SandboxPool({ concurrency: 2, timeoutMs: f.execTimeoutMs });
  const rng = resumableRng(`rft:${f.seed}:${round}`);
  const scorer = executionScorer({ pool, prompts: records.map(execPromptOf), decode: (ids) => tok.decode(ids), stopTokenIds: stops, template: f.template });
  let kept: { prompt: string; response: string }[] = [];
  const passes = new Array<number>(records.length).fill(0);
  try {
    // A chunk of whole prompts at a time: the copies of a prompt are prefilled once (generateBatch). A chunk's programs
    // run in the sandbox while the next chunk is sampled.
    const per = Math.max(1, Math.floor(f.sampleBatchSize / f.samples));
    const scoring: Promise<typeof kept>[] = [];
    for (let start = 0; start < prompts.length; start += per) {
      const rows = prompts.slice(start, start + per).flatMap((p) => new Array(f.samples).fill(p) as typeof prompts);
      const gen = await sampleResponses(engine, rows.map((r) => r.ids), {
        maxNewTokens: f.maxNewTokens,
        temperature: f.temperature,
        stopTokenIds: stops,
        vocabSize: tok.vocabSize,
        rng,
        batchSize: rows.length,
      });
      const done = Math.min(start + per, prompts.length);
      scoring.push(
        (async () => {
          const scores = await scorer(rolloutSamples(rows, gen));
          const passed = rows.map((_, i) => scores[i] >= 1 && gen.endedWithEos[i]);
          rows.forEach((row, i) => (passes[row.index] += Number(passed[i])));
          // the stop token is left out: SFT appends EOS itself
          const chunk = keepPassing(rows.map((row, i) => ({ prompt: row.index, response: tok.decode(gen.responseIds[i].slice(0, -1)), passed: passed[i] })), f.keepPerPrompt);
          if (!f.quiet) log(`rft: round ${round}: scored the samples of ${done} / ${prompts.length} prompts`);
          return chunk.map((k) => ({ prompt: records[k.prompt].prompt, response: k.response }));
        })(),
      );
    }
    kept = (await Promise.all(scoring)).flat(); // prompt order, whatever finished first
  } finally {
    await engine.close();
    policy.dispose();
  }
  const byGroup: Record<string, { pass: number; n: number }> = {};
  records.forEach((r, i) => {
    const g = typeof r.group === 'string' ? r.group : null;
    if (g === null) return;
    byGroup[g] ??= { pass: 0, n: 0 };
    byGroup[g].pass += passes[i];
    byGroup[g].n += f.samples;
  });
  const total = passes.reduce((s, x) => s + x, 0);
  return {
    kept,
    passRate: total / (records.length * f.samples),
    solved: passes.filter((p) => p > 0).length,
    byGroup: Object.keys(byGroup).length > 0 ? Object.fromEntries(Object.entries(byGroup).map(([g, v]) => [g, v.pass / v.n])) : undefined,
  };
}

/** The policy as the round's result when it did not train: its checkpoint files copied into `out` (replaced). */
function copyCheckpoint(from: string, out: string): void {
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0 && !['config.json', 'adapter_config.json'].some((f) => fs.existsSync(path.join(out, f)))) {
    throw new UsageError(`--out ${out}: not empty and not a checkpoint folder; refusing to replace it`);
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.cpSync(from, out, { recursive: true });
}

/** Checks the files before any model is loaded. */
async function readInputs(f: RftSettings) {
  checkpointAt(f.model, '--model');
  let records = await readPpoData(f.data);
  if (f.limit > 0) records = records.slice(0, f.limit);
  const withTests = records.filter((r) => r.tests && r.tests.length > 0);
  if (withTests.length === 0) throw new UsageError(`--data ${f.data}: no prompt has tests; rft keeps the programs that pass them`);
  const replay = f.replayRatio > 0 ? (await readSftData(f.replayData)).filter((r) => r.suffix === undefined) : [];
  if (f.replayRatio > 0 && replay.length === 0) throw new UsageError(`--replay-data ${f.replayData}: no {prompt, response} row to replay (or set --replay-ratio 0)`);
  return { records: withTests, replay };
}

export async function runRft(f: RftSettings, log: (line: string) => void = console.error) {
  const { records, replay } = await readInputs(f);
  log(
    `rft: ${f.rounds} round${f.rounds === 1 ? '' : 's'} from ${f.model}: ${records.length} prompts of ${f.data} x ${f.samples} samples at T ${f.temperature}, ` +
      `<= ${f.keepPerPrompt} passing programs kept per prompt, ${f.replayRatio} x as many rows of ${f.replayData} replayed; ${f.epochs} epoch(s) at lr ${f.lr}`,
  );
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rft-'));
  const rounds: RftRound[] = [];
  let policy = f.model;
  try {
    for (let round = 1; round <= f.rounds; round++) {
      const t0 = Date.now();
      const s = await sampleRound(f, policy, records, round, log);
      const sampled = { round, policy, prompts: records.length, samples: records.length * f.samples, pass_rate: s.passRate, prompts_solved: s.solved, ...(s.byGroup ? { pass_rate_by_group: s.byGroup } : {}) };
      if (s.kept.length === 0) {
        // Nothing verified to learn from: the round leaves the policy as it is (said loudly, and in rft.jsonl).
        log(`rft: round ${round}: warning: no sample of ${policy} passed its tests; the policy stays as it is (a stronger --model, more --samples or another --temperature)`);
        if (path.resolve(policy) !== path.resolve(f.out)) copyCheckpoint(policy, f.out);
        rounds.push({ ...sampled, kept: 0, replayed: 0, optimizer_steps: 0, time_sample_s: (Date.now() - t0) / 1000, time_train_s: 0 });
        policy = f.out;
        continue;
      }
      const want = Math.min(replay.length, Math.round(f.replayRatio * s.kept.length));
      const replayed = shuffle(replay, `rft:${f.seed}:${round}:replay`).slice(0, want).map((r) => ({ prompt: r.prompt, response: r.response }));
      const rows = shuffle([...s.kept, ...replayed], `rft:${f.seed}:${round}:mix`);
      const dataFile = path.join(work, `round-${round}.jsonl`);
      await writeJsonl(dataFile, rows);
      const t1 = Date.now();
      // Every round writes --out: the next round samples from it and the last one is the result.
      const result = await runSft(roundSftSettings(f, policy, dataFile, f.out, round), log);
      if (result.interrupted) throw new Error(`rft: round ${round}: the fine-tuning was interrupted`);
      rounds.push({ ...sampled, kept: s.kept.length, replayed: replayed.length, optimizer_steps: result.step, time_sample_s: (t1 - t0) / 1000, time_train_s: (Date.now() - t1) / 1000 });
      log(`rft: round ${round}: pass rate ${s.passRate.toFixed(3)} at T ${f.temperature}, ${s.solved} / ${records.length} prompts solved, ${s.kept.length} programs + ${replayed.length} replayed rows, ${result.step} optimizer steps`);
      policy = f.out;
    }
    // The round logs and the last round's data beside the checkpoint (after its last save, which replaces the folder).
    fs.writeFileSync(path.join(f.out, 'rft.jsonl'), rounds.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const lastData = path.join(work, `round-${f.rounds}.jsonl`);
    if (fs.existsSync(lastData)) fs.copyFileSync(lastData, path.join(f.out, 'rft_data.jsonl'));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const last = rounds[rounds.length - 1];
  return {
    stage: 'rft',
    out: f.out,
    rounds: rounds.length,
    optimizer_steps: rounds.reduce((s, r) => s + r.optimizer_steps, 0),
    first_pass_rate: rounds[0].pass_rate,
    last_pass_rate: last.pass_rate,
    kept: last.kept,
  };
}
