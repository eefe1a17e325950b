// The tool-rl CLI as a user runs it: the seed's preset as the defaults (--print-config), --help from the schemas, and
// clear one-line errors for a bad flag, a bad task file and a checkpoint without a chat template.
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { saveTinyAppModel } from '@rlhf-code/model/testing';

const toolRl = (...args: string[]) => runApp('tool-rl', args);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tool-rl-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('train defaults are the seed\'s settings (group 4, KL 0.001, entropy 0.01, 30 s calls, 10 turns)', () => {
  expect(printedConfig('tool-rl', ['train'])).toMatchObject({ groupSize: 4, klCoef: 0.001, entropyCoef: 0.01, toolTimeoutMs: 30000, maxTurns: 10, interpreter: 'stateful' });
  expect(printedConfig('tool-rl', ['train', '--entropy-coef', '0', '--interpreter', 'stateless'])).toMatchObject({ entropyCoef: 0, interpreter: 'stateless' });
});

test('--help lists the flags; bad input is one clear line', async () => {
  const help = toolRl('train', '--help');
  expect(help.code).toBe(0);
  for (const flag of ['--entropy-coef', '--kl-coef', '--group-size', '--interpreter', '--max-turns', '--tool-timeout-ms', '--malformed-penalty']) expect(help.stdout).toContain(flag);
  const bad = toolRl('train', '--interpreter', 'docker');
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/--interpreter/);
  expect(bad.stderr).not.toMatch(/^\s+at /m);

  const tasks = path.join(dir, 'tasks.jsonl');
  writeFileSync(tasks, '{"question": "What is 1 + 1?", "answer": "2"}\n{"question": "What?"}\n');
  const model = path.join(dir, 'model');
  await saveTinyAppModel(model, 'tiny', 'lm');
  const r = toolRl('train', '--model', model, '--data', tasks, '--out', path.join(dir, 'out'), '--steps', '1');
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`${tasks}:2`);
  expect(r.stderr).toContain('needs "answer" or "tests"');
  expect(r.stderr).not.toMatch(/^\s+at /m);
});
