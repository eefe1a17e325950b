// The eval CLI's wiring: each command runs with the settings libs/eval declares, and bad settings are one line each.
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { EvalBaseSettings, EvalRunSettings } from '@rlhf-code/eval';

describe('eval settings', () => {
  it('--print-config: run needs --models; base takes the schema defaults', () => {
    expect(printedConfig('eval', ['run', '--models', 'sft=results/sft'])).toEqual(EvalRunSettings.parse({ models: 'sft=results/sft' }));
    expect(printedConfig('eval', ['base', '--limit', '10'])).toEqual(EvalBaseSettings.parse({ limit: 10 }));
  });

  it('run: stubs on by default, dev data, candidate temperatures and dev samples from their flags', () => {
    const defaults = EvalRunSettings.parse({ models: 'a=b' });
    expect(defaults).toMatchObject({ stubs: true, temperatures: [0, 0.2, 0.4, 0.6, 0.8, 1], devSamples: 4 });
    expect(defaults.devData).toBeUndefined();
    const argv = ['run', '--models', 'a=b', '--dev-data', 'dev.jsonl', '--temperatures', '0, 0.3,1', '--dev-samples', '2', '--no-stubs'];
    expect(printedConfig('eval', argv)).toEqual({ ...defaults, devData: 'dev.jsonl', temperatures: [0, 0.3, 1], devSamples: 2, stubs: false });
  });

  it('errors name the flag, one line each', () => {
    const r = runApp('eval', ['run', '--print-config']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('eval: error: --models: required (give --models, or "models" in a --config file)\n');
    const s = runApp('eval', ['run', '--models', 'a=b', '--samples', '0', '--no-greedy-pass', '--print-config']);
    expect(s.stderr).toBe('eval: error: --samples: 0 with --no-greedy-pass leaves nothing to evaluate\n');
    const d = runApp('eval', ['run', '--models', 'a=b', '--dev-data', 'dev.jsonl', '--greedy', '--print-config']);
    expect(d.stderr).toBe('eval: error: --dev-data: needs sampled answers (a chosen temperature above 0 is sampled): not with --greedy or --samples 0\n');
    const t = runApp('eval', ['run', '--models', 'a=b', '--temperatures', '0.2,0,0.2', '--print-config']);
    expect(t.stderr).toBe('eval: error: --temperatures: lists a temperature twice\n');
  });
});
