import * as fs from 'fs';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { formatFim } from '@rlhf-code/tokenizer';
import { continueHeaders, continueRequestBody, runSimulation, streamCompletion } from '@rlhf-code/continue';
import { loadMergedWeights, type HostTensor } from '@rlhf-code/model';
import { saveTinyAdapter, tempDir } from '@rlhf-code/model/testing';
import { parseOnlineConfig, type OnlineConfigInput } from '@rlhf-code/online-core';
import { jsonOf, makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { GATE_FEATURES, loadGateModel } from '@rlhf-code/online-gate';
import { listCheckpoints } from '@rlhf-code/online-learning';
import { startMeasuringService, startOnlineService, type OnlineService } from './service';

beforeAll(() => initBackend({ quiet: true }));

let modelDir: string;
beforeAll(async () => {
  modelDir = await makeTinyModelDir(5);
});

const lines: string[] = [];
async function start(stateDir: string, extra: OnlineConfigInput = {}): Promise<OnlineService> {
  const config = parseOnlineConfig({
    model: modelDir,
    stateDir,
    abFraction: 0,
    completion: { port: 0, maxTokensCap: 8 },
    feedback: { port: 0 },
    ...extra,
    // The outcome update (these tests count its updates event by event; objective user-rm has tests of its own).
    training: { objective: 'outcome', batchSize: 2, minibatches: 1, lr: 1e-3, maxUpdateKl: 100, checkpointEvery: 1, maxSeqLen: 128, ...extra.training },
  });
  return startOnlineService(config, { log: (l) => lines.push(l) });
}

const auth = { 'Content-Type': 'application/json', Authorization: 'Bearer test-token', 'X-Project-ID': 'test-project' };

async function serveAndReport(s: OnlineService, prefix: string, accepted: boolean, completionId?: string) {
  const prompt = formatFim(prefix, '\n');
  const r = await streamCompletion(`${s.completionUrl}/v1/completions`, continueRequestBody(prompt, 'Qwen2.5-Coder-1.5B'), continueHeaders('xxx'));
  const res = await fetch(`${s.feedbackUrl}/api/training/submit`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ completionId, prompt, completion: r.text || 'x', accepted, cacheHit: false }),
  });
  expect(res.status).toBe(200);
  return { streamed: r, answer: await jsonOf(res) };
}

test('feedback -> update -> swapped weights, version, checkpoint, metrics, status JSON', async () => {
  const stateDir = tempDir();
  const s = await start(stateDir);
  try {
    const a = await serveAndReport(s, 'x = ', true, 'id-1');
    expect(a.answer).toEqual({ status: 'submitted', message: 'Training data submitted successfully', queue_position: 1 });
    expect(a.streamed.versions.every((v) => v === 0)).toBe(true);
    await serveAndReport(s, 'y = ', false, 'id-2'); // second event: batch of 2 -> update
    await s.idle();
    const st = s.status();
    expect(st).toMatchObject({ policy_version: 1, events_received: 2, events_trained: 2, events_pending: 0, updates: 1, discarded_updates: 0 });
    expect(st.acceptance_by_version['0']).toMatchObject({ requests: 2, accepted: 1, rejected: 1 });
    expect(st.acceptance_by_arm.policy).toMatchObject({ requests: 2, accepted: 1 });
    expect(st.acceptance_by_arm.start.requests).toBe(0);
    expect(st.last_losses).toHaveLength(1);
    for (const key of ['policy_version', 'events_received', 'events_trained', 'events_pending', 'acceptance_by_version', 'acceptance_by_arm']) {
      expect(st).toHaveProperty(key);
    }
    // The same JSON over HTTP.
    const http = await jsonOf(fetch(`${s.feedbackUrl}/api/training/status`));
    expect(http.policy_version).toBe(1);
    expect(http.acceptance_by_version['0'].requests).toBe(2);
    // The next completion is served by version 1.
    const next = await serveAndReport(s, 'z = ', true, 'id-3');
    expect(next.streamed.versions[0]).toBe(1);
    // Duplicate completionId: counted once.
    const dup = await serveAndReport(s, 'z = ', false, 'id-3');
    expect(dup.answer.status).toBe('duplicate');
    expect(s.status().events_received).toBe(3);
    expect(fs.existsSync(path.join(stateDir, 'checkpoints', 'v000001', 'model.safetensors'))).toBe(true);
    expect(fs.existsSync(path.join(stateDir, 'checkpoints', 'v000001', 'tokenizer.json'))).toBe(true);
    const metrics = fs.readFileSync(path.join(stateDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(metrics[0]).toMatchObject({ step: 1, policy_version: 1, events: 2, accepted: 1, rejected: 1, discarded: null });
    expect(lines.some((l) => /update 1 -> v1: 2 events \(1 accepted, 1 rejected, 0 silent\)/.test(l))).toBe(true);
  } finally {
    await s.close();
  }
});

test('LoRA: one base for start, policy and served copy; an update swaps only the adapter; its checkpoint resumes', async () => {
  const stateDir = tempDir();
  const lora = { loraRank: 2, loraTargets: ['q_proj' as const, 'v_proj' as const, 'down_proj' as const] };
  const s = await start(stateDir, { training: { ...lora } });
  const base = (await loadMergedWeights(modelDir)).weights;
  let trained: Map<string, HostTensor>;
  try {
    const served = await s.generator.servedModel();
    expect(served.activeAdapter).toBe('served');
    expect([...served.trainable.keys()].every((n) => n.includes('.lora_'))).toBe(true);
    await serveAndReport(s, 'x = ', true, 'id-1');
    await serveAndReport(s, 'y = ', false, 'id-2');
    await s.idle();
    expect(s.status()).toMatchObject({ policy_version: 1, updates: 1, discarded_updates: 0 });
    // The served adapter now holds the update (its B moved off zero); the base weights never moved.
    trained = (await s.generator.servedModel()).trainable;
    expect([...trained].some(([n, t]) => n.includes('lora_B') && t.data.some((x) => x !== 0))).toBe(true);
    for (const [name, t] of served.host) expect(Array.from(t.data)).toEqual(Array.from(base.get(name)!.data));
    const ckpt = path.join(stateDir, 'checkpoints', 'v000001');
    expect(fs.existsSync(path.join(ckpt, 'adapter_config.json'))).toBe(true);
    expect(fs.existsSync(path.join(ckpt, 'model.safetensors'))).toBe(false);
  } finally {
    await s.close();
  }
  const again = await start(stateDir, { training: { ...lora } });
  try {
    expect(again.status().policy_version).toBe(1);
    for (const [name, t] of (await again.generator.servedModel()).trainable) expect(Array.from(t.data)).toEqual(Array.from(trained.get(name)!.data));
  } finally {
    await again.close();
  }
  await expect(start(stateDir)).rejects.toThrow('holds a LoRA adapter; set training.loraRank to resume it');
});

test('LoRA on an int8 base (training.baseDtype): the served base is int8 (within its rounding of the fp32 weights), an update publishes the adapter, the checkpoint is an adapter folder; without LoRA it is refused', async () => {
  const stateDir = tempDir();
  const s = await start(stateDir, { training: { loraRank: 2, loraTargets: ['q_proj', 'v_proj'], baseDtype: 'int8' } });
  try {
    const before = await s.generator.servedModel();
    // hostWeights() of an int8 base is its dequantised matrices: within int8's per-row rounding of the fp32 originals.
    const fp32 = (await loadMergedWeights(modelDir)).weights;
    const q = 'model.layers.0.self_attn.q_proj.weight';
    const [a, b] = [before.host.get(q)!.data, fp32.get(q)!.data];
    expect(a.some((x, i) => x !== b[i])).toBe(true);
    const maxAbs = b.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    expect(a.every((x, i) => Math.abs(x - b[i]) <= maxAbs / 127)).toBe(true);
    await serveAndReport(s, 'x = ', true, 'id-1');
    await serveAndReport(s, 'y = ', false, 'id-2');
    await s.idle();
    expect(s.status()).toMatchObject({ policy_version: 1, updates: 1, discarded_updates: 0 });
    const after = await s.generator.servedModel();
    expect([...after.trainable].some(([n, t]) => n.includes('lora_B') && t.data.some((x) => x !== 0))).toBe(true);
    expect(fs.existsSync(path.join(stateDir, 'checkpoints', 'v000001', 'adapter_config.json'))).toBe(true);
  } finally {
    await s.close();
  }
  expect(() => parseOnlineConfig({ training: { baseDtype: 'bf16' } })).toThrow('training.baseDtype: a base in bf16 trains only through LoRA: set training.loraRank');
});

test('a LoRA adapter folder as the model: its base with the adapter folded in, trained in full or with a new adapter', async () => {
  const adapterDir = path.join(tempDir(), 'sft-lora');
  await saveTinyAdapter(adapterDir, modelDir, { seed: 3 });
  const merged = (await loadMergedWeights(adapterDir)).weights;
  const stateDir = tempDir();
  const full = await start(stateDir, { model: adapterDir });
  try {
    const served = await full.generator.servedModel();
    expect(served.lora).toBeNull(); // not the loaded adapter, trained and saved on top of itself
    for (const [name, t] of served.host) expect(Array.from(t.data)).toEqual(Array.from(merged.get(name)!.data));
    await serveAndReport(full, 'x = ', true, 'id-1');
    await serveAndReport(full, 'y = ', false, 'id-2');
    await full.idle();
    expect(full.status()).toMatchObject({ policy_version: 1, updates: 1 });
    expect(fs.existsSync(path.join(stateDir, 'checkpoints', 'v000001', 'model.safetensors'))).toBe(true);
  } finally {
    await full.close();
  }
  const lora = await start(tempDir(), { model: adapterDir, training: { loraRank: 2, loraTargets: ['q_proj', 'v_proj'] } });
  try {
    expect((await lora.generator.servedModel()).lora).toMatchObject({ r: 2, targets: ['q_proj', 'v_proj'] });
    for (const [name, t] of (await lora.generator.servedModel()).host) expect(Array.from(t.data)).toEqual(Array.from(merged.get(name)!.data));
  } finally {
    await lora.close();
  }
});

test('an empty answer is the server own silent sample (reward 0), not a client outcome', async () => {
  const s = await start(tempDir(), { training: { batchSize: 100 } });
  try {
    const res = await fetch(`${s.completionUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: formatFim('q = ', '\n'), max_tokens: 0 }),
    });
    expect((await jsonOf(res)).choices[0].text).toBe('');
    for (let i = 0; i < 50 && s.status().events_received === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const st = s.status();
    expect(st.events_received).toBe(1);
    expect(st.acceptance_by_version['0']).toMatchObject({ requests: 1, shown: 0, accepted: 0, rejected: 0, suggestion_rate: 0 });
    expect(s.log.all()[0]).toMatchObject({ source: 'server', outcome: { completion: '', accepted: false } });
  } finally {
    await s.close();
  }
});

test('restart: untrained feedback is replayed, the policy resumes from its checkpoint, no event lost', async () => {
  const stateDir = tempDir();
  let s = await start(stateDir, { training: { batchSize: 3, checkpointEvery: 100 } });
  for (const [i, p] of ['a = ', 'b = ', 'c = '].entries()) await serveAndReport(s, p, i === 0, `r${i}`);
  await s.idle();
  expect(s.status()).toMatchObject({ policy_version: 1, events_trained: 3 });
  await serveAndReport(s, 'd = ', true, 'r3');
  await serveAndReport(s, 'e = ', false, 'r4');
  expect(s.status().events_pending).toBe(2);
  await s.close(); // writes the checkpoint of version 1 (checkpointEvery is 100)
  expect(fs.existsSync(path.join(stateDir, 'checkpoints', 'v000001', 'config.json'))).toBe(true);

  s = await start(stateDir, { training: { batchSize: 3, checkpointEvery: 100 } });
  try {
    expect(s.status()).toMatchObject({ policy_version: 1, events_received: 5, events_trained: 3, events_pending: 2 });
    expect(s.status().acceptance_by_version['0'].requests).toBe(3); // statistics rebuilt from the logs
    const dup = await serveAndReport(s, 'e = ', false, 'r4');
    expect(dup.answer.status).toBe('duplicate'); // dedup survives the restart
    await serveAndReport(s, 'f = ', true, 'r5');
    await s.idle();
    expect(s.status()).toMatchObject({ policy_version: 2, events_received: 6, events_trained: 6, events_pending: 0 });
  } finally {
    await s.close();
  }
});

test('A/B arms and the simulated user: the start arm serves its share and is reported separately', async () => {
  const s = await start(tempDir(), { abFraction: 0.5, training: { batchSize: 1000 } });
  try {
    const examples = Array.from({ length: 6 }, (_, i) => ({ prefix: `v${i} = `, suffix: '\n', middle: `${i}`, path: `m${i}.py` }));
    const summary = await runSimulation({
      examples,
      events: 20,
      completionUrl: `${s.completionUrl}/v1/completions`,
      feedbackUrl: `${s.feedbackUrl}/api/training/submit`,
      token: 'test-token',
      project: 'test-project',
      countTokens: (t) => s.tokenizer.encode(t).length,
      reportEvery: 10,
      log: () => undefined,
    });
    expect(summary.requests).toBe(20);
    expect(summary.feedback_errors).toBe(0);
    expect(summary.timeline).toHaveLength(2);
    const st = s.status();
    const arms = st.acceptance_by_arm;
    expect(arms.policy.requests + arms.start.requests).toBe(20);
    expect(arms.start.requests).toBeGreaterThan(2); // Binomial(20, 0.5): P(<= 2) ~ 2e-4
    expect(arms.policy.requests).toBeGreaterThan(2);
    expect(summary.by_arm.start?.requests ?? 0).toBe(arms.start.requests);
    // Every shown suggestion was reported; start-arm outcomes are stored but never trained on.
    expect(s.log.all().filter((e) => e.source === 'continue')).toHaveLength(summary.totals.shown);
    expect(s.log.all().filter((e) => e.served?.arm === 'start').every((e) => e.skip === 'startArm')).toBe(true);
    expect(st.events_skipped).toBeGreaterThanOrEqual(summary.by_arm.start?.shown ?? 0);
  } finally {
    await s.close();
  }
});

test('no credential reaches the state dir: tracking headers, API keys and the configured tokens are stripped', async () => {
  const stateDir = tempDir();
  const token = 'sk-secret-token-4242';
  const apiKey = 'api-key-1717';
  const s = await start(stateDir, {
    feedback: { port: 0, tokens: [token], projects: ['*'] },
    completion: { port: 0, maxTokensCap: 8, apiKeys: [apiKey] },
    training: { objective: 'outcome', batchSize: 1 },
  });
  try {
    const prompt = formatFim('x = ', '\n');
    const served = await streamCompletion(`${s.completionUrl}/v1/completions`, continueRequestBody(prompt, 'Qwen2.5-Coder-1.5B'), continueHeaders(apiKey));
    // Continue's outcome spreads every autocomplete option, the tracking headers among them.
    const body = {
      completionId: 'c-1',
      prompt,
      completion: served.text || 'y',
      accepted: true,
      completionTrackingUrl: 'http://127.0.0.1:8082/api/training/submit',
      completionTrackingHeaders: { Authorization: `Bearer ${token}`, 'X-Project-ID': 'p' },
      apiKey,
      options: { nested: { note: `copied ${token} here` }, list: ['fine', `Bearer ${token}`], debounceDelay: 350 },
      prefix: `# key ${apiKey}\nx = `,
    };
    const res = await fetch(`${s.feedbackUrl}/api/training/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    await s.idle();
    expect(s.status().events_trained).toBe(1);
    const stored = s.log.all()[0].outcome as Record<string, unknown>;
    expect(stored).toMatchObject({ completionId: 'c-1', prompt, accepted: true, prefix: '# key [redacted]\nx = ' });
    expect(stored).not.toHaveProperty('completionTrackingHeaders');
    expect(stored).not.toHaveProperty('apiKey');
    expect(stored.options).toEqual({ nested: {}, list: ['fine'], debounceDelay: 350 });
  } finally {
    await s.close();
  }
  // Every file the service wrote (logs, checkpoints, metrics): no secret anywhere.
  const files = (fs.readdirSync(stateDir, { recursive: true }) as string[]).map((f) => path.join(stateDir, f)).filter((f) => fs.statSync(f).isFile());
  expect(files.some((f) => f.endsWith('feedback.jsonl'))).toBe(true);
  for (const f of files) {
    const bytes = fs.readFileSync(f).toString('latin1');
    expect({ file: f, token: bytes.includes(token), apiKey: bytes.includes(apiKey) }).toEqual({ file: f, token: false, apiKey: false });
  }
});

test('the measuring service serves with the completion settings it is given, and trains nothing', async () => {
  const { service, stop } = await startMeasuringService(modelDir, { modelName: 'measured-qwen-coder', maxTokensCap: 4 });
  try {
    const models = await jsonOf(fetch(`${service.completionUrl}/v1/models`));
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(['measured-qwen-coder']);
    const body = await jsonOf(
      fetch(`${service.completionUrl}/v1/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: formatFim('x = ', '\n'), max_tokens: 100 }) }),
    );
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(4);
    expect(service.status()).toMatchObject({ batch_size: 1_000_000, ab_fraction: 0 });
  } finally {
    await stop();
  }
});

test('the measuring service holds its models as the training section says (a LoRA adapter on an int8 base), and serves them', async () => {
  const { service, stop } = await startMeasuringService(modelDir, { maxTokensCap: 4 }, {}, { training: { loraRank: 4, baseDtype: 'int8' } });
  try {
    const served = await service.generator.servedModel();
    expect(served.lora?.r).toBe(4);
    expect(served.activeAdapter).toBe('served');
    const body = await jsonOf(
      fetch(`${service.completionUrl}/v1/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: formatFim('x = ', '\n'), max_tokens: 100 }) }),
    );
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(service.status()).toMatchObject({ batch_size: 1_000_000 });
  } finally {
    await stop();
  }
});

test('show gate: a fitted gate.json hides policy suggestions (a blank answer, no silent sample), never the start arm', async () => {
  // A gate that predicts P(accept) ~ 0 for everything, with threshold 0.5: every policy suggestion is hidden.
  const gated = path.join(tempDir(), 'model');
  fs.cpSync(modelDir, gated, { recursive: true });
  const d = GATE_FEATURES.length;
  const hideAll = { features: [...GATE_FEATURES], mean: new Array(d).fill(0), std: new Array(d).fill(1), weights: [-10, ...new Array(d).fill(0)], threshold: 0.5, n: 0, accepted: 0, validated: true };
  fs.writeFileSync(path.join(gated, 'gate.json'), JSON.stringify(hideAll));
  const request = async (s: OnlineService, stream: boolean) =>
    fetch(`${s.completionUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: formatFim('q = ', '\n'), max_tokens: 6, min_tokens: 6, temperature: 1, stream }),
    });
  const stateDir = tempDir();
  const s = await startOnlineService(parseOnlineConfig({ model: gated, stateDir, abFraction: 0, completion: { port: 0 }, feedback: { port: 0 }, gate: { explore: 0 } }), { log: () => undefined });
  try {
    expect(s.status().gate).toMatchObject({ enabled: true, active: true, threshold: 0.5, outcomes: 0 });
    expect((await jsonOf(request(s, false))).choices[0]).toMatchObject({ text: '' });
    const streamed = await streamCompletion(`${s.completionUrl}/v1/completions`, { prompt: formatFim('q = ', '\n'), max_tokens: 6, min_tokens: 6, temperature: 1, stream: true }, { 'content-type': 'application/json' });
    expect(streamed.text).toBe('');
    await new Promise((r) => setTimeout(r, 50));
    expect(s.status().gate).toMatchObject({ judged: 2, hidden: 2, explored: 0 });
    expect(s.status().acceptance_by_arm.policy).toMatchObject({ requests: 2, silent: 2 });
    expect(s.log.all()).toHaveLength(0); // hidden is not the policy choosing silence: nothing to train on
  } finally {
    await s.close();
  }
  const served = fs.readFileSync(path.join(stateDir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(served.map((r) => [r.blank, r.gated])).toEqual([[true, true], [true, true]]);
  // A gate that shows everything: the held suggestion is sent whole, in line chunks, once judged.
  fs.writeFileSync(path.join(gated, 'gate.json'), JSON.stringify({ ...hideAll, weights: [10, ...new Array(d).fill(0)] }));
  const shows = await startOnlineService(parseOnlineConfig({ model: gated, stateDir: tempDir(), abFraction: 0, completion: { port: 0 }, feedback: { port: 0 } }), { log: () => undefined });
  try {
    const body = { prompt: formatFim('q = ', '\n'), max_tokens: 6, min_tokens: 6, temperature: 1, seed: 5 };
    const held = await streamCompletion(`${shows.completionUrl}/v1/completions`, { ...body, stream: true }, { 'content-type': 'application/json' });
    const whole = (await jsonOf(fetch(`${shows.completionUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))).choices[0].text;
    expect(held.text).not.toBe('');
    expect(held.text).toBe(whole); // the same seed: streamed held text = the plain answer
    expect(held.pieces.slice(1).map((p) => p.text).filter((t) => t !== '').every((t) => t.startsWith('\n'))).toBe(true);
    expect(shows.status().gate).toMatchObject({ judged: 2, hidden: 0 });
  } finally {
    await shows.close();
  }
  // The start arm (abFraction 1) is the control: never gated; and with the gate disabled nothing is hidden either.
  for (const extra of [{ abFraction: 1 }, { gate: { enabled: false } }]) {
    const t = await startOnlineService(parseOnlineConfig({ model: gated, stateDir: tempDir(), abFraction: 0, completion: { port: 0 }, feedback: { port: 0 }, ...extra }), { log: () => undefined });
    try {
      expect((await jsonOf(request(t, false))).choices[0].text).not.toBe('');
      expect(t.status().gate.hidden).toBe(0);
    } finally {
      await t.close();
    }
  }
});

test('show gate: outcomes of served suggestions train it, and a checkpoint carries it as gate.json', async () => {
  const stateDir = tempDir();
  const s = await start(stateDir, { gate: { minOutcomes: 4, minEach: 1, refitEvery: 1, validateP: 1 }, training: { batchSize: 4 } });
  try {
    for (let i = 0; i < 4; i++) await serveAndReport(s, `v${i} = `, i % 2 === 0);
    await s.idle();
    for (let i = 0; i < 50 && s.status().gate.outcomes < 4; i++) await new Promise((r) => setTimeout(r, 10));
    await s.gate.ready(); // the refit runs in a thread of its own
    expect(s.status().gate).toMatchObject({ outcomes: 4, active: true, validated: true }); // validateP 1: no cross-validation needed
    expect(Object.keys(s.status().gate.weights!)).toEqual(['bias', ...GATE_FEATURES]);
  } finally {
    await s.close();
  }
  expect(fs.readFileSync(path.join(stateDir, 'gate.jsonl'), 'utf8').trim().split('\n')).toHaveLength(4);
  const ckpt = listCheckpoints(stateDir)[0].dir;
  expect(loadGateModel(ckpt)!.n).toBe(4);
});

// ---------------------------------------------------------------------------------------------- upstream Continue

/** The body upstream Continue posts to a `data:` destination (schema 0.2.0) for one autocomplete outcome. */
function upstreamEvent(data: { completionId: string; accepted: boolean; prompt?: string; completion?: string; [k: string]: unknown }, level: 'all' | 'noCode' = 'all') {
  const code = level === 'all' ? { prefix: 'x = ', suffix: '\n', prompt: data.prompt, completion: data.completion } : {};
  const { prompt: _p, completion: _c, ...rest } = data;
  return {
    name: 'autocomplete',
    schema: '0.2.0',
    level,
    profileId: 'local',
    data: {
      eventName: 'autocomplete',
      schema: '0.2.0',
      timestamp: new Date().toISOString(),
      userId: '',
      userAgent: 'Visual Studio Code/1.101.0 (Continue/1.2.0)',
      selectedProfileId: 'local',
      disable: false,
      maxPromptTokens: 1024,
      debounceDelay: 350,
      maxSuffixPercentage: 0.2,
      prefixPercentage: 0.3,
      multilineCompletions: 'auto',
      slidingWindowPrefixPercentage: 0.75,
      slidingWindowSize: 500,
      useCache: true,
      onlyMyCode: true,
      useRecentlyEdited: true,
      time: 150,
      modelProvider: 'openai',
      modelName: 'Qwen2.5-Coder-1.5B',
      cacheHit: false,
      filepath: 'file:///w/a.py',
      uniqueId: 'machine-1',
      ...code,
      ...rest,
    },
  };
}

/** Ask for a completion as Continue does; the prompt and what it would show. */
async function serveLikeContinue(s: OnlineService, prefix: string): Promise<{ prompt: string; completion: string }> {
  const prompt = formatFim(prefix, '\n');
  const r = await streamCompletion(`${s.completionUrl}/v1/completions`, continueRequestBody(prompt, 'Qwen2.5-Coder-1.5B'), continueHeaders('xxx'));
  return { prompt, completion: r.text || 'x' };
}

test('upstream Continue end to end: data: events are matched and trained; duplicate, noCode and other events answered 200 and counted', async () => {
  const stateDir = tempDir();
  const s = await start(stateDir, { training: { batchSize: 2 } });
  // No X-Project-ID: upstream sends only the data: entry's apiKey as a bearer token.
  const post = (body: object) =>
    fetch(`${s.feedbackUrl}/api/training/submit`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer test-token' }, body: JSON.stringify(body) });
  try {
    const first = await serveLikeContinue(s, 'u = ');
    const a = await post(upstreamEvent({ completionId: 'up-1', accepted: true, ...first }));
    expect(a.status).toBe(200);
    expect(await jsonOf(a)).toMatchObject({ status: 'submitted', message: 'Training data submitted successfully' });
    const stored = s.log.all().find((e) => e.outcome.completionId === 'up-1')!;
    expect(stored).toMatchObject({ source: 'continue', via: 'devData', project: 'test-project', skip: null, served: { arm: 'policy', version: 0 } });
    expect(stored.outcome).toMatchObject({ prompt: first.prompt, completion: first.completion, accepted: true, modelName: 'Qwen2.5-Coder-1.5B' });
    expect(s.status().unmatched_outcomes).toBe(0);

    const second = await serveLikeContinue(s, 'w = ');
    expect((await post(upstreamEvent({ completionId: 'up-2', accepted: false, ...second }))).status).toBe(200);
    await s.idle();
    let st = s.status();
    expect(st.events_trained).toBeGreaterThanOrEqual(2);
    expect(st.updates).toBeGreaterThanOrEqual(1);
    expect(st.policy_version).toBeGreaterThanOrEqual(1);
    expect(st.acceptance_by_version['0']).toMatchObject({ accepted: 1, rejected: 1 });

    // Continue's rejection timer and a retry can post the same completionId again: counted once.
    const dup = await post(upstreamEvent({ completionId: 'up-2', accepted: false, ...second }));
    expect(dup.status).toBe(200);
    expect((await jsonOf(dup)).status).toBe('duplicate');

    // level noCode: 200, stored without code, never trained on.
    const noCode = await post(upstreamEvent({ completionId: 'nc-1', accepted: true }, 'noCode'));
    expect(noCode.status).toBe(200);
    expect((await jsonOf(noCode)).status).toBe('no_code');
    // Another event type (no events: list in Continue's data: entry): 200, nothing stored.
    const chat = await post({ name: 'chatInteraction', schema: '0.2.0', level: 'all', profileId: 'local', data: { prompt: 'explain', completion: 'it adds', modelName: 'm', userId: '' } });
    expect(chat.status).toBe(200);
    expect((await jsonOf(chat)).status).toBe('ignored');

    st = await jsonOf(fetch(`${s.feedbackUrl}/api/training/status`));
    expect(st.upstream).toEqual({ autocomplete: 2, no_code: 1, ignored_events: { chatInteraction: 1 } });
    expect(st.duplicates).toBe(1);
    expect(st.unmatched_outcomes).toBe(0);
    expect(st.events_pending).toBe(0); // the noCode event is skipped, not pending
    expect(s.log.all().filter((e) => e.source === 'continue')).toHaveLength(3);
    expect(s.log.all().find((e) => e.outcome.completionId === 'nc-1')).toMatchObject({ skip: 'noCode', served: null });
  } finally {
    await s.close();
  }
  // After a restart the stored counts are rebuilt from the log (ignored events were never stored).
  const again = await start(stateDir, { training: { batchSize: 2 } });
  try {
    expect(again.status().upstream).toEqual({ autocomplete: 2, no_code: 1, ignored_events: {} });
    expect(again.status().events_pending).toBe(0);
  } finally {
    await again.close();
  }
});

test('no secret of an upstream post reaches the state dir or the log: userId, bearer token, custom headers, git credentials', async () => {
  const stateDir = tempDir();
  const token = 'sk-feedback-token-7777';
  const secrets = {
    token,
    userId: 'sk-continue-user-SECRET123',
    header: 'custom-header-SECRET456',
    apiKeyHeader: 'api-key-header-SECRET789',
    git: 'ghp_GITSECRET000',
  };
  const logged: string[] = [];
  const config = parseOnlineConfig({
    model: modelDir,
    stateDir,
    abFraction: 0,
    completion: { port: 0, maxTokensCap: 8 },
    feedback: { port: 0, tokens: [token], projects: ['team-a'] },
    training: { objective: 'outcome', batchSize: 1, minibatches: 1, lr: 1e-3, maxUpdateKl: 100, checkpointEvery: 1, maxSeqLen: 128 },
  });
  const s = await startOnlineService(config, { log: (l) => logged.push(l) });
  // Continue's request: Authorization from the data: entry's apiKey, the rest from its requestOptions.headers.
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'X-Custom-Auth': secrets.header, 'X-Api-Key': secrets.apiKeyHeader };
  const post = (body: object) => fetch(`${s.feedbackUrl}/api/training/submit`, { method: 'POST', headers, body: JSON.stringify(body) });
  try {
    const served = await serveLikeContinue(s, 'x = ');
    const extra = { userId: secrets.userId, gitRepo: `https://x-access-token:${secrets.git}@github.com/me/w.git` };
    const res = await post(upstreamEvent({ completionId: 's-1', accepted: true, ...served, ...extra }));
    expect(res.status).toBe(200);
    expect((await jsonOf(res)).status).toBe('submitted');
    // The userId copied into the code (masked) and into another field (dropped); a noCode and a chat event with it.
    expect((await post(upstreamEvent({ completionId: 's-2', accepted: false, ...served, ...extra, prefix: `# ${secrets.userId}\nx = `, note: `user ${secrets.userId}` }))).status).toBe(200);
    expect((await post(upstreamEvent({ completionId: 's-3', accepted: false, ...extra }, 'noCode'))).status).toBe(200);
    expect((await post({ name: 'chatInteraction', data: { userId: secrets.userId, prompt: 'p' }, schema: '0.2.0', level: 'all' })).status).toBe(200);
    const bad = await post(upstreamEvent({ completionId: 's-4', accepted: 'yes' as unknown as boolean, ...served, ...extra }));
    expect(bad.status).toBe(400);
    const badText = await bad.text();
    for (const v of Object.values(secrets)) expect(badText).not.toContain(v);
    await s.idle();
    expect(s.status().events_trained).toBeGreaterThanOrEqual(2);
    const first = s.log.all().find((e) => e.outcome.completionId === 's-1')!;
    expect(first).toMatchObject({ project: 'team-a', served: { arm: 'policy' }, outcome: { gitRepo: 'https://github.com/me/w.git' } });
    expect(first.outcome).not.toHaveProperty('userId');
    expect(s.log.all().find((e) => e.outcome.completionId === 's-2')!.outcome).toMatchObject({ prefix: '# [redacted]\nx = ' });
  } finally {
    await s.close();
  }
  const files = (fs.readdirSync(stateDir, { recursive: true }) as string[]).map((f) => path.join(stateDir, f)).filter((f) => fs.statSync(f).isFile());
  expect(files.some((f) => f.endsWith('feedback.jsonl'))).toBe(true);
  expect(files.some((f) => f.endsWith('model.safetensors'))).toBe(true); // a checkpoint was written and searched too
  for (const f of files) {
    const bytes = fs.readFileSync(f).toString('latin1');
    for (const [name, value] of Object.entries(secrets)) expect({ file: f, secret: name, found: bytes.includes(value) }).toEqual({ file: f, secret: name, found: false });
  }
  expect(logged.length).toBeGreaterThan(0);
  for (const line of logged) for (const value of Object.values(secrets)) expect(line).not.toContain(value);
});

// ---------------------------------------------------------------------------------------------- named arms

test("named arms, blocked: one service serves another run's policy (version, gate.json) and the start model, each arm with its own gate mechanisms", async () => {
  // The "trained" policy: a folder with a gate that hides everything (P(accept) ~ 0, threshold 0.5).
  const trained = path.join(tempDir(), 'v000007');
  fs.cpSync(modelDir, trained, { recursive: true });
  const d = GATE_FEATURES.length;
  const hideAll = { features: [...GATE_FEATURES], mean: new Array(d).fill(0), std: new Array(d).fill(1), weights: [-10, ...new Array(d).fill(0)], threshold: 0.5, n: 0, accepted: 0, validated: true };
  fs.writeFileSync(path.join(trained, 'gate.json'), JSON.stringify(hideAll));
  const arms = [
    { name: 'start', model: 'start' as const },
    { name: 'hold-cut', model: 'start' as const, holdCut: true },
    { name: 'rank', model: 'start' as const, rank: true },
    { name: 'hide', model: 'start' as const, hide: true },
    { name: 'update', model: 'policy' as const },
    { name: 'all', model: 'policy' as const, rank: true, hide: true },
  ];
  const { service: s, stop } = await startMeasuringService(modelDir, { maxTokensCap: 8 }, {}, { policy: { dir: trained, version: 7 }, arms, routing: 'blocked' });
  try {
    expect(s.status().gate).toMatchObject({ active: true, threshold: 0.5 });
    const body = { prompt: formatFim('q = ', '\n'), max_tokens: 6, min_tokens: 6, temperature: 1 };
    const answers = [];
    for (let i = 0; i < arms.length; i++) {
      answers.push(await jsonOf(fetch(`${s.completionUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })));
    }
    const by = Object.fromEntries(answers.map((a) => [a.arm, a]));
    expect(Object.keys(by).sort()).toEqual(arms.map((a) => a.name).sort()); // each arm once in the block
    // Hidden: the arms with `hide` (start model or policy alike); the others show what their model wrote.
    for (const name of ['hide', 'all']) expect(by[name].choices[0].text).toBe('');
    for (const name of ['start', 'hold-cut', 'rank', 'update']) expect(by[name].choices[0].text).not.toBe('');
    // One sampling seed per block: the start model's arms that show sampled the same first candidate.
    expect(by['hold-cut'].choices[0].text).toBe(by.start.choices[0].text);
    // The policy's arms say its version; the start model's say 0.
    expect(Object.fromEntries(answers.map((a) => [a.arm, a.policy_version]))).toEqual({ start: 0, 'hold-cut': 0, rank: 0, hide: 0, update: 7, all: 7 });
    // Only `hide` asks the gate's verdict (rank ranks without one; hold-cut is not judged).
    expect(s.status().gate).toMatchObject({ judged: 2, hidden: 2 });
    const byArm = s.status().acceptance_by_arm;
    expect(Object.keys(byArm).sort()).toEqual(arms.map((a) => a.name).sort());
    for (const a of arms) expect(byArm[a.name].requests).toBe(1);
    expect(Object.keys(s.status().acceptance_by_version)).toEqual(['7']); // versions count the policy's arms only
  } finally {
    await stop();
  }
});
