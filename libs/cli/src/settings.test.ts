import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from './flags';
import { settingsCommand } from './command';
import { RUNTIME_ENV, runtimeSettings, RuntimeSettings } from './runtime';
import { parseSettings, readSettingsFile, settingFields } from './settings';

const Plain = z.strictObject({
  model: z.string().default('models/base').describe('starting checkpoint').meta({ env: 'TEST_MODEL_PATH' }),
  lr: z.number().positive().default(1e-4).describe('peak learning rate'),
  steps: z.number().int().positive().default(10).describe('iterations'),
  minLr: z.number().nonnegative().optional().describe('final learning rate (default lr / 10)'),
  template: z.enum(['raw', 'chat']).default('raw').describe('prompt format'),
  whiten: z.boolean().default(true).describe('whiten advantages'),
  quiet: z.boolean().default(false).describe('no progress bar'),
  tokens: z.array(z.string()).default([]).describe('accepted tokens'),
});

const Ppo = z.strictObject({ algo: z.literal('ppo'), lr: z.number().default(5e-5).describe('learning rate'), vfCoef: z.number().default(0.1).describe('value loss weight') });
const Grpo = z.strictObject({ algo: z.literal('grpo'), lr: z.number().default(1e-5).describe('learning rate'), groupSize: z.number().int().min(2).default(4).describe('samples per prompt') });
const Union = z.preprocess((v) => ({ algo: 'ppo', ...(v as object) }), z.discriminatedUnion('algo', [Ppo, Grpo]));

/** Run `argv` through a command built from `schema`; returns what the action received or printed. */
async function run(schema: z.ZodType, argv: string[]): Promise<{ settings?: unknown; printed?: string }> {
  const out: { settings?: unknown; printed?: string } = {};
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((s) => ((out.printed = String(s)), true));
  try {
    const program = new Command('t').exitOverride();
    settingsCommand(program.command('go').exitOverride(), schema, (s) => void (out.settings = s));
    await program.parseAsync(['node', 't', 'go', ...argv]);
  } finally {
    write.mockRestore();
  }
  return out;
}

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('settings from one schema', () => {
  afterEach(() => delete process.env.TEST_MODEL_PATH);

  it('lists fields with flags, kinds, defaults and descriptions', () => {
    const f = Object.fromEntries(settingFields(Plain).map((x) => [x.key, x]));
    expect(f.minLr).toMatchObject({ flag: '--min-lr', kind: 'number', description: 'final learning rate (default lr / 10)' });
    expect(f.steps.kind).toBe('int');
    expect(f.template.choices).toEqual(['raw', 'chat']);
    expect(f.model.env).toBe('TEST_MODEL_PATH');
    expect(f.lr.defaults.get('')).toBe(1e-4);
    expect(f.minLr.defaults.size).toBe(0);
  });

  it('no flags = the schema defaults; flags are typed by the schema', async () => {
    expect((await run(Plain, [])).settings).toEqual(Plain.parse({}));
    const s = (await run(Plain, ['--lr', '3e-4', '--steps', '5', '--template', 'chat', '--no-whiten', '--quiet', '--tokens', 'a, b'])).settings;
    expect(s).toEqual({ ...Plain.parse({}), lr: 3e-4, steps: 5, template: 'chat', whiten: false, quiet: true, tokens: ['a', 'b'] });
  });

  it('precedence: defaults < --config file < environment < flags', async () => {
    const file = tmpFile('c.yaml', 'lr: 0.002\nsteps: 7\nmodel: from-file\n');
    expect((await run(Plain, ['--config', file])).settings).toMatchObject({ lr: 0.002, steps: 7, model: 'from-file' });
    process.env.TEST_MODEL_PATH = 'from-env';
    expect((await run(Plain, ['--config', file])).settings).toMatchObject({ model: 'from-env', steps: 7 });
    expect((await run(Plain, ['--config', file, '--model', 'from-flag', '--steps', '3'])).settings).toMatchObject({ model: 'from-flag', steps: 3, lr: 0.002 });
  });

  it('--print-config prints JSON that reads back as --config to the same settings', async () => {
    const { printed, settings } = await run(Plain, ['--lr', '0.5', '--template', 'chat']);
    expect(printed).toBeUndefined();
    const p = await run(Plain, ['--lr', '0.5', '--template', 'chat', '--print-config']);
    expect(p.settings).toBeUndefined();
    const { runtime, ...stage } = JSON.parse(p.printed!);
    expect(stage).toEqual(settings);
    expect(Object.keys(runtime)).toEqual(['backend', 'threads', 'native', 'nativeThreads', 'nativeGemm', 'avx512', 'bf16Gemm', 'llamacppGpu', 'python', 'debug']);
    const file = tmpFile('c.json', p.printed!);
    expect((await run(Plain, ['--config', file])).settings).toEqual(settings);
  });

  it('errors name the flag, the variable or the file and key', async () => {
    await expect(run(Plain, ['--lr', 'abc'])).rejects.toThrow(new UsageError('--lr: expected a number, got "abc"'));
    await expect(run(Plain, ['--steps', '0'])).rejects.toThrow(/^--steps: Too small/);
    await expect(run(Plain, ['--steps', '1.5'])).rejects.toThrow(/^--steps: /);
    const bad = tmpFile('bad.yaml', 'lr: -1\nstepz: 3\nmax-len: 4\n');
    await expect(run(Plain, ['--config', bad])).rejects.toThrow(`--config ${bad}: lr: Too small`);
    await expect(run(Plain, ['--config', bad])).rejects.toThrow(`--config ${bad}: stepz: unknown setting`);
    const kebab = tmpFile('k.yaml', 'min-lr: 0.1\n');
    await expect(run(Plain, ['--config', kebab])).rejects.toThrow('unknown setting (did you mean "minLr"?)');
    await expect(run(Plain, ['--config', tmpFile('l.yaml', '- 1\n- 2\n')])).rejects.toThrow('expected a mapping of settings, got a list');
    await expect(run(Plain, ['--config', tmpFile('j.json', '{"lr": ')])).rejects.toThrow(/not valid JSON or YAML/);
    await expect(run(Plain, ['--config', '/nonexistent/x.yaml'])).rejects.toThrow('--config /nonexistent/x.yaml: cannot read (ENOENT)');
    process.env.TEST_MODEL_PATH = 'x';
    await expect(run(z.strictObject({ model: z.string().min(2).meta({ env: 'TEST_MODEL_PATH' }) }), [])).rejects.toThrow(/^TEST_MODEL_PATH: /);
    process.env.TEST_MODEL_PATH = ''; // an empty variable is not given
    expect((await run(Plain, [])).settings).toMatchObject({ model: 'models/base' });
  });

  it('a required setting without a value says how to give it', async () => {
    const S = z.strictObject({ src: z.string().describe('source folder') });
    await expect(run(S, [])).rejects.toThrow('--src: required (give --src, or "src" in a --config file)');
    expect((await run(S, ['--src', 'x'])).settings).toEqual({ src: 'x' });
  });

  it('a discriminated union: variant defaults, variant-only flags, help', async () => {
    expect((await run(Union, [])).settings).toEqual({ algo: 'ppo', lr: 5e-5, vfCoef: 0.1 });
    expect((await run(Union, ['--algo', 'grpo', '--group-size', '8'])).settings).toEqual({ algo: 'grpo', lr: 1e-5, groupSize: 8 });
    await expect(run(Union, ['--group-size', '8'])).rejects.toThrow('--group-size: only with algo grpo, not algo ppo');
    const f = Object.fromEntries(settingFields(Union).map((x) => [x.key, x]));
    expect(f.algo.choices).toEqual(['ppo', 'grpo']);
    expect(f.algo.defaults.get('')).toBe('ppo');
    expect(f.groupSize.variants).toEqual(['grpo']);
    const program = new Command('t');
    const help = settingsCommand(program.command('go'), Union, () => undefined).helpInformation();
    expect(help).toContain('--lr <x>');
    expect(help).toMatch(/learning rate \(default: 0\.00005 with ppo,\s+0\.00001 with\s+grpo\)/);
    expect(help).toMatch(/samples per prompt \(grpo only\) \(default: 4\)/);
    expect(help).toContain('--print-config');
  });

  it('rejects schemas the command line cannot express', () => {
    expect(() => settingFields(z.strictObject({ config: z.string() }))).toThrow('reserved');
    expect(() => settingFields(z.strictObject({ m: z.record(z.string(), z.number()) }))).toThrow('field "m" has type record');
  });
});

describe('list settings', () => {
  it('comma lists, number lists, and repeated flags', async () => {
    const S = z.strictObject({
      forms: z.array(z.enum(['a', 'b'])).default(['a']).describe('forms'),
      sizes: z.array(z.number().int().positive()).default([1, 8]).describe('sizes'),
      stop: z.array(z.string()).default([]).describe('stop strings').meta({ repeat: true }),
    });
    expect((await run(S, [])).settings).toEqual({ forms: ['a'], sizes: [1, 8], stop: [] });
    expect((await run(S, ['--forms', 'b,a', '--sizes', '2, 4', '--stop', 'x,y', '--stop', '\n'])).settings).toEqual({ forms: ['b', 'a'], sizes: [2, 4], stop: ['x,y', '\n'] });
    await expect(run(S, ['--sizes', '2,x'])).rejects.toThrow('--sizes: expected numbers separated by commas, got "2,x"');
    await expect(run(S, ['--forms', 'a,c'])).rejects.toThrow(/^--forms \(item 2\): /);
  });
});

describe('groups', () => {
  const host = z.string().default('127.0.0.1').describe('interface').meta({ flag: 'host' });
  const Nested = z
    .strictObject({
      model: z.string().default('m').describe('model'),
      arms: z.array(z.strictObject({ name: z.string() })).optional().describe('the arms').meta({ flag: false }),
      server: z
        .strictObject({ host, port: z.number().int().default(8081).describe('port'), keys: z.array(z.string()).default([]).describe('keys').meta({ env: 'TEST_KEYS' }) })
        .prefault({})
        .describe('the server'),
      train: z
        .strictObject({
          lr: z.number().positive().default(1e-5).describe('learning rate').meta({ flag: 'lr' }),
          l2: z.union([z.number().min(0), z.literal('cv')]).default('cv').describe('penalty'),
          reward: z.strictObject({ p: z.number().gt(0).lt(1).default(0.25).describe('threshold') }).prefault({}),
        })
        .prefault({}),
      other: z
        .strictObject({ host, projects: z.array(z.string()).default(['a']).describe('projects'), main: z.string().optional().describe('main project') })
        .transform((o) => ({ ...o, main: o.main ?? o.projects[0] }))
        .prefault({}),
    })
    .superRefine((s, ctx) => {
      if (!s.other.projects.includes(s.other.main)) ctx.addIssue({ code: 'custom', path: ['other', 'main'], message: 'not one of other.projects' });
    });
  afterEach(() => delete process.env.TEST_KEYS);

  it("a group's fields are flags named after it, or as .meta({ flag }) names them; a shared flag sets every field naming it", async () => {
    const f = Object.fromEntries(settingFields(Nested).map((x) => [x.key, x]));
    expect(Object.keys(f)).toEqual(['model', 'server.host', 'server.port', 'server.keys', 'train.lr', 'train.l2', 'train.reward.p', 'other.host', 'other.projects', 'other.main']);
    expect([f['server.port'].flag, f['train.lr'].flag, f['train.reward.p'].flag, f['other.host'].flag]).toEqual(['--server-port', '--lr', '--train-reward-p', '--host']);
    expect((await run(Nested, [])).settings).toEqual(Nested.parse({}));
    const s = (await run(Nested, ['--host', '0.0.0.0', '--server-port', '1', '--lr', '0.1', '--train-l2', '3', '--train-reward-p', '0.5', '--other-projects', 'x,y'])).settings;
    expect(s).toEqual({ model: 'm', server: { host: '0.0.0.0', port: 1, keys: [] }, train: { lr: 0.1, l2: 3, reward: { p: 0.5 } }, other: { host: '0.0.0.0', projects: ['x', 'y'], main: 'x' } });
    expect((await run(Nested, ['--train-l2', 'cv'])).settings).toMatchObject({ train: { l2: 'cv' } });
  });

  it('precedence per key inside groups: defaults < file < environment < flags', async () => {
    const file = tmpFile('n.yaml', 'server:\n  port: 9\n  keys: [f]\ntrain:\n  reward:\n    p: 0.3\narms:\n  - name: a\n');
    process.env.TEST_KEYS = 'e1, e2';
    const s = (await run(Nested, ['--config', file, '--lr', '0.2'])).settings;
    expect(s).toMatchObject({ server: { host: '127.0.0.1', port: 9, keys: ['e1', 'e2'] }, train: { lr: 0.2, l2: 'cv', reward: { p: 0.3 } }, arms: [{ name: 'a' }] });
  });

  it('errors name the flag, the variable, or the file and the whole key', async () => {
    const bad = tmpFile('bad.yaml', 'server:\n  prot: 1\ntrain:\n  reward:\n    p: 2\n');
    await expect(run(Nested, ['--config', bad])).rejects.toThrow(`--config ${bad}: server.prot: unknown setting`);
    await expect(run(Nested, ['--config', bad])).rejects.toThrow(`--config ${bad}: train.reward.p: Too big`);
    await expect(run(Nested, ['--config', tmpFile('k.yaml', 'server:\n  max-len: 1\n')])).rejects.toThrow(/server\.max-len: unknown setting$/);
    await expect(run(Nested, ['--config', tmpFile('k.yaml', 'train:\n  reward:\n    p: 0.1\n  l-2: 1\n')])).rejects.toThrow(/train\.l-2: unknown setting/);
    await expect(run(Nested, ['--train-l2', 'x'])).rejects.toThrow('--train-l2: expected a number or cv, got "x"');
    await expect(run(Nested, ['--lr', '0'])).rejects.toThrow(/^--lr: Too small/);
    await expect(run(Nested, ['--other-main', 'z'])).rejects.toThrow('--other-main: not one of other.projects');
    await expect(run(Nested, ['--config', tmpFile('m.yaml', 'other:\n  main: z\n')])).rejects.toThrow(/m\.yaml: other\.main: not one of other\.projects/);
    expect((await run(Nested, ['--config', tmpFile('m.yaml', 'other:\n  main: z\n'), '--other-projects', 'z'])).settings).toMatchObject({ other: { main: 'z' } });
  });

  it('--help lists a group under its heading, shared and file-only settings once', () => {
    const help = settingsCommand(new Command('t').command('go'), Nested, () => undefined).helpInformation();
    expect(help).toMatch(/server \(the server\):\n\s+--server-port <n>\s+port \(default: 8081\)/);
    expect(help).toMatch(/--host <value>\s+interface \(default: 127\.0\.0\.1\)\s+\(sets\s+server\.host\s+and\s+other\.host\)/);
    expect(help).toContain('--train-l2 <x|cv>');
    expect(help).toMatch(/only\s+a\s+file\s+sets\s+arms\s+\(the\s+arms\)/);
    expect(help).not.toContain('--arms');
  });

  it('two fields may share a flag only by naming it', () => {
    const clash = z.strictObject({ aB: z.number().default(1), a: z.strictObject({ b: z.number().default(1) }).prefault({}) });
    expect(() => settingFields(clash)).toThrow('"aB" and "a.b" would share --a-b');
    expect(() => settingFields(z.strictObject({ m: z.array(z.strictObject({})) }))).toThrow('.meta({ flag: false })');
  });

  it('a file of another command, and settings a program builds, are checked with errors naming their source', () => {
    const file = tmpFile('svc.yaml', 'server:\n  port: x\n');
    expect(() => readSettingsFile(Nested, file, '--service-config')).toThrow(`--service-config ${file}: server.port: Invalid input: expected number, received string`);
    expect(readSettingsFile(Nested, tmpFile('ok.yaml', 'train:\n  lr: 0.5\n'), '--service-config')).toEqual({ train: { lr: 0.5 } });
    expect(() => parseSettings(Nested, { train: { rewrd: {} } }, 'config')).toThrow('config: train.rewrd: unknown setting');
    expect(parseSettings(Nested, {}, 'config')).toEqual(Nested.parse({}));
  });
});

describe('the runtime settings every command has', () => {
  const names = Object.values(RUNTIME_ENV);
  let saved: Record<string, string | undefined>;
  beforeEach(() => {
    saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    for (const n of names) delete process.env[n];
  });
  afterEach(() => {
    for (const n of names) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  });

  it('--print-config shows them as `runtime`, each with its variable: defaults < --config < environment < flags', async () => {
    const printed = async (argv: string[]) => JSON.parse((await run(Plain, [...argv, '--print-config'])).printed!).runtime;
    expect(await printed([])).toEqual({ backend: 'auto', threads: 'auto', native: true, nativeThreads: 'auto', nativeGemm: 'own', avx512: true, bf16Gemm: 'auto', llamacppGpu: process.platform === 'darwin' && process.arch === 'arm64' ? 'metal' : 'cpu', python: 'python3', debug: false });
    const f = Object.fromEntries(settingFields(RuntimeSettings).map((x) => [x.key, x]));
    expect(Object.fromEntries(Object.entries(f).map(([k, x]) => [k, x.env]))).toEqual(RUNTIME_ENV);
    for (const x of Object.values(f)) expect(x.description.length).toBeGreaterThan(10);
    const file = tmpFile('r.yaml', 'lr: 0.002\nruntime:\n  nativeThreads: 3\n  python: /opt/py\n  backend: cpu\n');
    expect(await printed(['--config', file])).toMatchObject({ nativeThreads: 3, python: '/opt/py', backend: 'cpu' });
    process.env.RLHF_NATIVE_THREADS = '5';
    process.env.RLHF_AVX512 = 'false';
    expect(await printed(['--config', file])).toMatchObject({ nativeThreads: 5, avx512: false, backend: 'cpu' });
    expect(await printed(['--config', file, '--backend', 'wasm', '--runtime-threads', '2', '--no-runtime-native'])).toMatchObject({ backend: 'wasm', threads: 2, native: false, nativeThreads: 5 });
    // the stage's own settings stay apart: the file's lr reaches them, its runtime section does not
    expect((await run(Plain, ['--config', file])).settings).toEqual({ ...Plain.parse({}), lr: 0.002 });
    // a boolean's variable is read for its value, not as a switch
    process.env.RLHF_NATIVE = '1';
    process.env.RLHF_DEBUG = '0';
    expect(await printed([])).toMatchObject({ native: true, debug: false });
    process.env.RLHF_NATIVE = 'no';
    process.env.RLHF_DEBUG = 'true';
    expect(await printed([])).toMatchObject({ native: false, debug: true });
    expect(await printed(['--no-runtime-avx512'])).toMatchObject({ avx512: false });
    process.env.RLHF_LLAMACPP_GPU = 'vulkan';
    expect(await printed([])).toMatchObject({ llamacppGpu: 'vulkan' });
    process.env.RLHF_LLAMACPP_GPU = 'tpu';
    await expect(printed([])).rejects.toThrow(/RLHF_LLAMACPP_GPU/);
  });

  it('the values given are exported to the environment (as the readers, workers and the addon read them) before the command runs', async () => {
    const file = tmpFile('r.yaml', 'runtime:\n  nativeGemm: openblas\n');
    process.env.RLHF_AVX512 = 'no';
    let seen: NodeJS.ProcessEnv = {};
    const program = new Command('t').exitOverride();
    settingsCommand(program.command('go').exitOverride(), Plain, () => void (seen = { ...process.env }));
    await program.parseAsync(['node', 't', 'go', '--config', file, '--backend', 'cpu']);
    expect([seen.RLHF_NATIVE_GEMM, seen.RLHF_BACKEND, seen.RLHF_AVX512, seen.RLHF_THREADS]).toEqual(['openblas', 'cpu', '0', undefined]);
    expect(runtimeSettings()).toMatchObject({ nativeGemm: 'openblas', backend: 'cpu', avx512: false, threads: 'auto' });
  });

  it('runtimeSettings reads the environment through the schema; a bad value names its variable', async () => {
    expect(runtimeSettings({})).toEqual(RuntimeSettings.parse({}));
    expect(runtimeSettings({ RLHF_THREADS: '2', RLHF_NATIVE: '0', RLHF_DEBUG: '1' })).toMatchObject({ threads: 2, native: false, debug: true });
    expect(runtimeSettings({ RLHF_BACKEND: '', RLHF_THREADS: '' })).toMatchObject({ backend: 'auto', threads: 'auto' }); // empty: not given
    expect(() => runtimeSettings({ RLHF_BACKEND: 'tpu' })).toThrow(/^RLHF_BACKEND: Invalid option/);
    expect(() => runtimeSettings({ RLHF_NATIVE_THREADS: 'x' })).toThrow('RLHF_NATIVE_THREADS: expected a number or auto, got "x"');
    expect(() => runtimeSettings({ RLHF_NATIVE: 'maybe' })).toThrow('RLHF_NATIVE: expected true or false, got "maybe"');
    process.env.RLHF_THREADS = '0';
    await expect(run(Plain, [])).rejects.toThrow(/^RLHF_THREADS: /);
    const file = tmpFile('r.yaml', 'runtime:\n  thread: 2\n');
    delete process.env.RLHF_THREADS;
    await expect(run(Plain, ['--config', file])).rejects.toThrow(`--config ${file}: runtime.thread: unknown setting`);
  });

  it('--help lists them under their heading; a stage schema may not use the name runtime', () => {
    const help = settingsCommand(new Command('t').command('go'), Plain, () => undefined).helpInformation();
    expect(help).toMatch(/runtime \(the process[^)]*\):\n\s+--backend <name>/);
    expect(help).toContain('--runtime-native-threads <n|auto>');
    expect(() => settingsCommand(new Command('t').command('go'), z.strictObject({ runtime: z.string().default('x') }), () => undefined)).toThrow('"runtime" is reserved');
  });
});
