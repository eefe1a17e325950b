// The generate CLI's wiring: the settings libs/model and libs/engine declare, repeatable --stop, the cross-flag checks,
// and `gguf` writing a checkpoint's and an adapter's GGUF.
import * as fs from 'fs';
import * as path from 'path';
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { GenerateRunSettings } from '@rlhf-code/model';
import { saveTinyAdapter, saveTinyModel, tempDir } from '@rlhf-code/model/testing';

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

  it('gguf: exactly one of --model and --adapter; writes either GGUF and prints what it wrote', async () => {
    expect(runApp('generate', ['gguf', '--out', 'x.gguf', '--print-config']).stderr).toBe('generate: error: --model: pass exactly one of --model or --adapter\n');
    const dir = tempDir('generate-gguf-');
    try {
      await saveTinyModel(path.join(dir, 'm'));
      await saveTinyAdapter(path.join(dir, 'a'), path.join(dir, 'm'));
      expect(runApp('generate', ['gguf', '--adapter', path.join(dir, 'm'), '--out', path.join(dir, 'x.gguf')]).stderr).toBe(`generate: error: --adapter: ${path.join(dir, 'm')} is not a LoRA adapter folder (adapter_config.json without config.json)\n`);
      for (const [flag, folder, kind, tensors] of [['--model', 'm', 'model', 2 + 2 * 12], ['--adapter', 'a', 'lora', 2 * 7 * 2]] as const) {
        const out = path.join(dir, `${folder}.gguf`);
        const r = runApp('generate', ['gguf', flag, path.join(dir, folder), '--out', out]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ file: out, kind, tensors, bytes: fs.statSync(out).size });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
