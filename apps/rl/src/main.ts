// rl: reinforcement learning of the SFT policy against the reward model (and, when the prompts carry tests, the
// code's execution score), with an algorithm of @rlhf-code/rl's registry (PPO, GRPO, RLOO, RFT: `rl algos` lists them). The stage lives in
// @rlhf-code/rl (runRl); this file turns flags into its settings, draws the held-out chart (libs/eval's, a layer above
// rl), prints one JSON line per run, and lists the algorithms (`rl algos`, which run_all.sh checks RL_ALGOS against).
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { printStageResult, runCli, settingsCommand } from '@rlhf-code/cli';
import { heldOutSpec, renderSvg } from '@rlhf-code/eval';
import { shutdownBackend } from '@rlhf-code/backend';
import { ALGORITHMS, HELDOUT_SVG, RlSettings, runRl, type HeldOutPlot } from '@rlhf-code/rl';

/** heldout.svg in --out, redrawn after each held-out measurement; a failure to draw is a warning. */
function heldOutPlot(f: RlSettings): HeldOutPlot {
  const svg = path.join(f.out, HELDOUT_SVG);
  return async (history) => {
    try {
      fs.writeFileSync(svg, await renderSvg(heldOutSpec(history)));
    } catch (e) {
      console.error(`rl: warning: could not draw ${svg}: ${(e as Error).message}`);
    }
  };
}

const program = new Command('rl').description(`Reinforcement learning of a code policy: ${ALGORITHMS.map((a) => a.name).join(', ')} (\`rl algos\`).`);
settingsCommand(
  program
    .command('train')
    .description(
      'RL from the SFT checkpoint against the reward model (+ execution score); saves the policy in Hugging Face layout. ' +
        "A critic (PPO's) is a value head (v_head) on the policy's own final hidden states (no second model: CPU budget), " +
        "initialised from the reward model's score head when the widths match.",
    ),
  RlSettings,
  async (f) => printStageResult(await runRl(f, heldOutPlot(f))),
);

program
  .command('algos')
  .description('the RL algorithms, one line each: name, kind (policy-gradient or rejection-sampling), description (--algo takes the name)')
  .action(() => {
    for (const a of ALGORITHMS) process.stdout.write(`${a.name}\t${a.kind}\t${a.description}\n`);
  });

runCli(program, shutdownBackend);
