// SET, the pipeline scripts' one override of a stage's settings (tools/preset.cjs, tools/stages.sh): its values reach
// the stage's --config file, a section no stage reads or a key a stage's schema lacks is an error naming the entry,
// and a variable of the per-setting maps it replaced stops the script with the SET entry to use.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '../..');
const SMOKE = 'configs/run_all/smoke.yaml';

/** `node tools/preset.cjs ARGS` with SET. */
function preset(set: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['tools/preset.cjs', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SET: set } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A bash script run from the repository root with `env` (the runtime and script variables of the test's own environment left out). */
function bash(script: string, env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SET|PRESET|RESULTS|SEEDS?|RL_ALGOS|MODEL_PATH|LORA_RANK)$/.test(k)));
  const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', env: { ...base, ...env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'preset-'));

describe('preset.cjs: SET over the preset sections', () => {
  it('a section\'s SET values replace its keys before the stage\'s sections merge: numbers, words, lists, booleans', () => {
    const r = preset('ppo.lr=2e-5 rl.maxNewTokens=8 eval-dev.temperatures=[0, 0.5] sft.pack=false grpo.groupSize=6', SMOKE, 'config', 'rl', 'ppo');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ lr: 2e-5, maxNewTokens: 8, temperature: 1, steps: 1 });
    expect(JSON.parse(preset('eval-dev.temperatures=[0, 0.5]', SMOKE, 'config', 'eval', 'eval-dev').stdout)).toEqual({ batchSize: 8, temperatures: [0, 0.5], devSamples: 1 });
    expect(JSON.parse(preset('sft.pack=false', SMOKE, 'config', 'sft').stdout)).toMatchObject({ pack: false, lr: 3e-4 });
    // a later section's own key wins, as over an edit of the earlier section: sft-more keeps its lr
    expect(JSON.parse(preset('sft.lr=1e-4 sft.maxLen=64', SMOKE, 'config', 'sft', 'sft-more').stdout)).toMatchObject({ lr: 3e-4, maxLen: 64 });
    expect(preset('rl.maxNewTokens=8', SMOKE, 'value', 'rl.maxNewTokens').stdout).toBe('8\n');
    expect(preset('', SMOKE, 'value', 'rl.maxNewTokens').stdout).toBe('16\n');
  });

  it('a malformed entry, a section no stage reads, the script\'s knobs and a key the script gives are errors naming the entry', () => {
    const check = (set: string) => preset(set, '-', 'set-check', 'model data out', 'sft', 'rl', 'ppo');
    expect(check('rl.lr=1e-5 sft.epochs=3').code).toBe(0);
    expect(check('ppo.lr').stderr).toBe("preset: SET: 'ppo.lr' is not SECTION.KEY=VALUE (e.g. SET='rl.lr=1e-5 sft.epochs=3')\n");
    expect(check('ppo.lr=').stderr).toBe('preset: SET ppo.lr=: no value\n');
    expect(check('ppo.lr=[1').stderr).toContain('an unclosed bracket');
    expect(check('grpo.lr=1e-5')).toMatchObject({ code: 2, stderr: 'preset: SET grpo.lr=1e-5: no stage of this run reads a section "grpo" (they read: sft, rl, ppo)\n' });
    expect(check('script.SEEDS=3').stderr).toBe("preset: SET script.SEEDS=3: the script's own knobs are environment variables: SEEDS=3\n");
    expect(check('sft.model=/m').stderr).toContain('SET sft.model=/m: the script gives "model" itself');
  });
});

describe('stages.sh: stage_config writes each stage\'s --config file, check_set checks SET against the stage\'s schema', () => {
  const run = (set: string, dir: string) =>
    bash(
      `set -euo pipefail; SCRIPT_NAME=run_all PRESET=smoke LOG_DIR=${dir}; source tools/stages.sh; load_preset
       stage_config ppo rl:train rl ppo -- --algo ppo; stage_config sft sft:train sft; check_set`,
      { SET: set },
    );

  it('a SET value is in the written config, checked by the stage\'s --print-config', () => {
    const dir = tmp();
    const r = run('ppo.lr=2e-5 sft.epochs=2', dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'config/ppo.json'), 'utf8'))).toMatchObject({ lr: 2e-5, steps: 1, maxNewTokens: 16 });
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'config/sft.json'), 'utf8'))).toMatchObject({ epochs: 2, lr: 3e-4 });
  });

  it('a key not in the stage\'s schema, or a bad value, is an error naming the entry and the stage', () => {
    const r = run('ppo.lr2=1e-5 sft.epochs=x rl.groupSize=3', tmp());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('run_all: SET ppo.lr2=1e-5: unknown setting in stage ppo (rl:train -- --algo ppo)');
    expect(r.stderr).toContain('run_all: SET rl.groupSize=3: only with algo grpo or rloo, not algo ppo in stage ppo');
    expect(r.stderr).toContain('run_all: SET sft.epochs=x: Invalid input: expected number, received string in stage sft (sft:train)');
    expect(run('rm.lr=1e-5', tmp()).stderr).toContain('run_all: SET rm.lr=1e-5: no stage of this run reads a section "rm" (they read: ppo, rl, sft)');
  });
});

describe('the scripts: a variable of the maps SET replaced stops them before any stage, with its SET entry', () => {
  it('run_all.sh', () => {
    const dir = tmp();
    const r = bash('bash run_all.sh', { PRESET: 'smoke', RESULTS: dir, PPO_LR: '1e-5', SFT_EPOCHS: '2', GRPO_ARGS: '--lr 1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("run_all: PPO_LR is gone: use SET='ppo.lr=1e-5'");
    expect(r.stderr).toContain("run_all: SFT_EPOCHS is gone: use SET='sft.epochs=2'");
    expect(r.stderr).toContain("run_all: GRPO_ARGS is gone: give its settings as SET='grpo.KEY=VALUE ...'");
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('run_tools.sh', () => {
    const r = bash('bash run_tools.sh', { PRESET: 'smoke', RESULTS: tmp(), GRPO_LR: '5e-4', GRPO_LORA_RANK: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("run_tools: GRPO_LR is gone: use SET='grpo.lr=5e-4'");
    expect(r.stderr).toContain("run_tools: GRPO_LORA_RANK is gone: use SET='grpo.loraRank=0'");
  });

  it('a renamed script variable (GRAD_CHECKPOINTING) stops both with its new name, before any stage', () => {
    for (const script of ['run_all', 'run_tools']) {
      const dir = tmp();
      const r = bash(`bash ${script}.sh`, { PRESET: 'smoke', RESULTS: dir, GRAD_CHECKPOINTING: '1' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${script}: GRAD_CHECKPOINTING is now RECOMPUTE_LAYERS (RECOMPUTE_LAYERS=1)`);
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });

  it('a SET entry naming no stage of the run stops run_all.sh before its first stage', () => {
    const dir = tmp();
    const r = bash('bash run_all.sh', { PRESET: 'smoke', RESULTS: dir, RL_ALGOS: 'rft', SET: 'ppo.lr=1e-5' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('run_all: SET ppo.lr=1e-5: no stage of this run reads a section "ppo"');
    expect(fs.readdirSync(dir).sort()).toEqual(['logs']);
  });
});
