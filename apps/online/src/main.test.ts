// The online CLI's wiring: the measuring and data commands run with the settings their libs declare.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { SimulateSettings } from '@rlhf-code/continue';
import { PrepFimSettings } from '@rlhf-code/datagen';
import { ExperimentSettings, LatencySettings, LoadSettings } from '@rlhf-code/online-bench';

describe('online settings', () => {
  it('--print-config of latency, experiment, load, simulate and prep-fim', () => {
    expect(printedConfig('online', ['latency', '--concurrency', '1,2,4', '--forms', 'head'])).toEqual(LatencySettings.parse({ concurrency: [1, 2, 4], forms: ['head'] }));
    const yaml = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'online-cli-')), 'exp.yaml');
    fs.writeFileSync(yaml, 'user: compiles\nevents: 100\n');
    expect(printedConfig('online', ['experiment', '--config', yaml, '--lr', '3e-5'])).toEqual(ExperimentSettings.parse({ user: 'compiles', events: 100, lr: 3e-5 }));
    expect(printedConfig('online', ['simulate', '--data', 'd.jsonl', '--events', '5', '--no-feedback'])).toEqual(SimulateSettings.parse({ data: 'd.jsonl', events: 5, feedback: false }));
    expect(printedConfig('online', ['load', '--seconds', '30', '--kill'])).toEqual(LoadSettings.parse({ seconds: 30, kill: true }));
    expect(printedConfig('online', ['prep-fim', '--src', 's', '--out', 'o.jsonl'])).toEqual(PrepFimSettings.parse({ src: 's', out: 'o.jsonl' }));
  });

  it('serve keeps its nested config: --print-config reads a YAML file too', () => {
    const yaml = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'online-cli-')), 'online.yaml');
    fs.writeFileSync(yaml, 'training:\n  lr: 0.00002\ncompletion:\n  port: 9081\n');
    const s = printedConfig('online', ['serve', '--config', yaml, '--batch-size', '8']) as { training: { lr: number; batchSize: number }; completion: { port: number } };
    expect(s.training).toMatchObject({ lr: 2e-5, batchSize: 8 });
    expect(s.completion.port).toBe(9081);
  });

  it('serve --engine and --engine-weights: the engine the suggestions decode on, a bad one named in one line', () => {
    const s = printedConfig('online', ['serve', '--engine', 'llamacpp', '--engine-weights', 'Q8_0']) as { engine: string; engineWeights: string };
    expect([s.engine, s.engineWeights]).toEqual(['llamacpp', 'Q8_0']);
    expect((printedConfig('online', ['serve']) as { engine: string }).engine).toBe('local');
    const r = runApp('online', ['serve', '--engine', 'vllm']);
    expect(r.stderr).toMatch(/--engine: expected local, llamacpp or openai:URL, got 'vllm'\n$/);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('a bad list is one line naming the flag', () => {
    const r = runApp('online', ['latency', '--concurrency', '1,x']);
    expect(r.stderr).toBe('online: error: --concurrency: expected numbers separated by commas, got "1,x"\n');
  });
});
