// bench's command line: its settings, and the one-line errors for a python without torch and a missing torch script.
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { BenchCompareSettings, BenchSettings, TORCH_INSTALL } from '@rlhf-code/bench';

const bench = (...args: string[]) => runApp('bench', args);
const stackLines = (stderr: string) => stderr.split('\n').filter((l) => /^\s+at /.test(l));

describe('bench compare: CLI', () => {
  it('--print-config: the preset and compare settings of libs/bench', () => {
    expect(printedConfig('bench', ['compare'])).toEqual(BenchCompareSettings.parse({}));
    expect(printedConfig('bench', ['train', '--hidden', '64', '--steps', '6'])).toEqual(BenchSettings.parse({ hidden: 64, steps: 6 }));
    expect(bench('train', '--steps', '2', '--print-config').stderr).toBe('bench: error: --steps: Too small: expected number to be >=5\n');
  });

  it('a python without torch is one line naming the python and how to install torch', () => {
    const r = bench('compare', '--python', '/nonexistent/python', '--torch-script', __filename);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bench: error: --python \/nonexistent\/python: cannot import torch/);
    expect(r.stderr).toContain(TORCH_INSTALL);
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('a missing torch script is one line naming the path', () => {
    const r = bench('compare', '--torch-script', '/nonexistent/torch_ref_bench.py');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('bench: error: --torch-script: /nonexistent/torch_ref_bench.py not found (the PyTorch yardstick; pass --torch-script PATH)\n');
  });
});
