// The generate CLI's wiring: the settings libs/model declares, repeatable --stop, and the cross-flag checks.
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { GenerateRunSettings } from '@rlhf-code/model';

describe('generate settings', () => {
  it('--print-config: repeated --stop flags keep commas and newlines', () => {
    const s = printedConfig('generate', ['run', '--model', 'm', '--prompt', 'def f(', '--stop', 'a,b', '--stop', '\n\n', '--temperature', '0.5']);
    expect(s).toEqual(GenerateRunSettings.parse({ model: 'm', prompt: 'def f(', stop: ['a,b', '\n\n'], temperature: 0.5 }));
  });

  it('exactly one of --prompt and --ids; --greedy excludes the sampling flags', () => {
    expect(runApp('generate', ['run', '--model', 'm', '--print-config']).stderr).toBe('generate: error: --prompt: pass exactly one of --prompt or --ids\n');
    expect(runApp('generate', ['run', '--model', 'm', '--ids', '[1]', '--greedy', '--top-k', '3', '--print-config']).stderr).toBe(
      'generate: error: --greedy: cannot be combined with --temperature, --top-p or --top-k\n',
    );
  });
});
