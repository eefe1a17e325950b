// The eval CLI's wiring: each command runs with the settings libs/eval declares, and bad settings are one line each.
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { EvalBaseSettings, EvalRunSettings } from '@rlhf-code/eval';

describe('eval settings', () => {
  it('--print-config: run needs --models; base takes the schema defaults', () => {
    expect(printedConfig('eval', ['run', '--models', 'sft=results/sft'])).toEqual(EvalRunSettings.parse({ models: 'sft=results/sft' }));
    expect(printedConfig('eval', ['base', '--limit', '10'])).toEqual(EvalBaseSettings.parse({ limit: 10 }));
  });

  it('errors name the flag, one line each', () => {
    const r = runApp('eval', ['run', '--print-config']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('eval: error: --models: required (give --models, or "models" in a --config file)\n');
    const s = runApp('eval', ['run', '--models', 'a=b', '--samples', '0', '--no-greedy-pass', '--print-config']);
    expect(s.stderr).toBe('eval: error: --samples: 0 with --no-greedy-pass leaves nothing to evaluate\n');
  });
});
