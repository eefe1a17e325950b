import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { settingsCommand } from '@rlhf-code/cli';
import { tempDir } from '@rlhf-code/model/testing';
import { parseOnlineConfig, ServeSettings } from './config';

const ENV = ['ONLINE_TOKENS', 'ONLINE_PROJECTS', 'ONLINE_API_KEYS', 'MODEL_PATH', 'RLHF_BACKEND'];

/** The settings `online serve <argv>` runs with under `env` (the command as the app builds it, in process). */
async function serve(argv: string[], env: Record<string, string> = {}): Promise<ServeSettings> {
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
  Object.assign(process.env, env);
  try {
    let settings: ServeSettings | undefined;
    const program = new Command('online').exitOverride();
    settingsCommand(program.command('serve').exitOverride(), ServeSettings, (s) => void (settings = s));
    await program.parseAsync(['node', 'online', 'serve', ...argv]);
    return settings!;
  } finally {
    for (const k of ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

function configFile(value: unknown): string {
  const file = path.join(tempDir(), 'online.json');
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

test('documented defaults: ports 8081/8082, RLinf test token and project, Cursor rewards', () => {
  const c = parseOnlineConfig({});
  expect(c.completion.port).toBe(8081);
  expect(c.feedback.port).toBe(8082);
  expect(c.feedback.tokens).toEqual(['test-token']);
  expect(c.feedback.projects).toEqual(['test-project']);
  expect(c.training).toMatchObject({ batchSize: 16, clip: 0.2, maxGradNorm: 0.8, reward: { scheme: 'cursor', p: 0.25 } });
  expect(c.model).toBe('models/base');
  expect(parseOnlineConfig({ training: { batchSize: 4 } }).training.lr).toBe(1e-5); // untouched defaults inside a partly given section
});

test('serve: precedence file < environment < flags; one --host for both servers', async () => {
  const file = configFile({ abFraction: 0.3, feedback: { tokens: ['from-file'], port: 9002 }, training: { batchSize: 4 } });
  const s = await serve(['--config', file, '--feedback-port', '9999'], { ONLINE_TOKENS: 'a, b', ONLINE_PROJECTS: 'p1', MODEL_PATH: '/m', ONLINE_API_KEYS: 'k1' });
  expect(s.feedback).toMatchObject({ tokens: ['a', 'b'], projects: ['p1'], port: 9999, defaultProject: 'p1' });
  expect(s.completion.apiKeys).toEqual(['k1']);
  expect(s.abFraction).toBe(0.3);
  expect(s.training).toMatchObject({ batchSize: 4, lr: 1e-5 });
  expect(s.model).toBe('models/base'); // MODEL_PATH is run_all.sh's base model, not this command's --model
  const f = await serve(['--model', 'dir', '--state-dir', 'st', '--host', '0.0.0.0', '--completion-port', '9081', '--batch-size', '8', '--lr', '2e-5', '--ab-fraction', '0'], { MODEL_PATH: '/m' });
  expect(f).toMatchObject({ model: 'dir', stateDir: 'st', abFraction: 0, completion: { host: '0.0.0.0', port: 9081 }, feedback: { host: '0.0.0.0', port: 8082 }, training: { batchSize: 8, lr: 2e-5 } });
  expect((await serve(['--gate-l2', '3', '--no-gate-enabled'])).gate).toMatchObject({ l2: 3, enabled: false });
  expect((await serve(['--training-reward-scheme', 'binary'])).training.reward.scheme).toBe('binary');
});

test('serve: errors name the flag, the variable or the file and key', async () => {
  await expect(serve(['--config', configFile({ training: { batchsize: 4 } })])).rejects.toThrow(/--config \S+online\.json: training\.batchsize: unknown setting/);
  await expect(serve(['--config', configFile({ abFraction: 2 })])).rejects.toThrow(/online\.json: abFraction: /);
  await expect(serve(['--config', configFile('{')])).rejects.toThrow(/not valid JSON/);
  await expect(serve(['--lr', '0'])).rejects.toThrow(/^--lr: Too small/);
  await expect(serve(['--completion-port', 'x'])).rejects.toThrow('--completion-port: expected a number, got "x"');
  await expect(serve(['--gate-l2', 'x'])).rejects.toThrow('--gate-l2: expected a number or cv, got "x"');
});

test('completion.cacheReuseTokens: for the llamacpp engine only (another engine would ignore it)', () => {
  expect(parseOnlineConfig({ engine: 'llamacpp', completion: { cacheReuseTokens: 64 } }).completion.cacheReuseTokens).toBe(64);
  expect(parseOnlineConfig({}).completion.cacheReuseTokens).toBe(0);
  expect(() => parseOnlineConfig({ completion: { cacheReuseTokens: 64 } })).toThrow(/completion\.cacheReuseTokens: only the llamacpp engine .*engine is local/);
  expect(() => parseOnlineConfig({ engine: 'llamacpp', completion: { cacheReuseTokens: -1 } })).toThrow(/completion\.cacheReuseTokens: /);
});

test('feedback.defaultProject: the first allowed project unless set; must be an allowed one unless projects has "*"', async () => {
  expect(parseOnlineConfig({}).feedback.defaultProject).toBe('test-project');
  expect((await serve([], { ONLINE_PROJECTS: 'team-a,team-b' })).feedback.defaultProject).toBe('team-a');
  expect((await serve([], { ONLINE_PROJECTS: '*' })).feedback.defaultProject).toBe('default');
  expect((await serve([], { ONLINE_PROJECTS: '*,team-a' })).feedback.defaultProject).toBe('team-a');
  expect((await serve(['--feedback-default-project', 'b'], { ONLINE_PROJECTS: 'a,b' })).feedback.defaultProject).toBe('b');
  expect((await serve(['--feedback-default-project', 'mine'], { ONLINE_PROJECTS: '*' })).feedback.defaultProject).toBe('mine');
  await expect(serve(['--feedback-default-project', 'b'], { ONLINE_PROJECTS: 'a' })).rejects.toThrow('--feedback-default-project: "b" is not one of feedback.projects (a)');
  expect(() => parseOnlineConfig({ feedback: { projects: ['a'], defaultProject: 'b' } })).toThrow('config: feedback.defaultProject: "b" is not one of feedback.projects (a)');
});

test('feedback.defaultProject in a file is checked against the projects of the whole config (environment included)', async () => {
  const file = configFile({ feedback: { defaultProject: 'my-team' } });
  expect((await serve(['--config', file], { ONLINE_PROJECTS: 'my-team,other' })).feedback.defaultProject).toBe('my-team');
  await expect(serve(['--config', file])).rejects.toThrow(/online\.json: feedback\.defaultProject: "my-team" is not one of feedback\.projects \(test-project\)/);
});

test('serve --help: every key under its group, with its default', () => {
  const help = settingsCommand(new Command('online').command('serve'), ServeSettings, () => undefined).helpInformation();
  expect(help).toMatch(/--host <value>\s+interface the server listens on .*\(default: 127\.0\.0\.1\) \(sets\s+completion\.host\s+and\s+feedback\.host\)/s);
  expect(help).toMatch(/training \(the updates[^\n]*\):\n[\s\S]*--batch-size <n>[\s\S]*--lr <x>[\s\S]*--training-reward-p <x>/);
  expect(help).toMatch(/--completion-port <n>[^\n]*\(default: 8081\)/);
  expect(help).toContain('--gate-l2 <x|cv>');
  expect(help).not.toContain('--arms');
});
