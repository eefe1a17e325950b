import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from './flags';
import { settingFields, settingsCommand } from './settings';

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
    expect(JSON.parse(p.printed!)).toEqual(settings);
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
    process.env.TEST_MODEL_PATH = '';
    await expect(run(z.strictObject({ model: z.string().min(1).meta({ env: 'TEST_MODEL_PATH' }) }), [])).rejects.toThrow(/^TEST_MODEL_PATH: /);
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
    expect(help).toMatch(/learning rate \(default: 0\.00005 with ppo, 0\.00001 with\s+grpo\)/);
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
