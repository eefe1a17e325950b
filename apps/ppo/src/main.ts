// ppo: reinforcement learning of the SFT policy against the reward model (and, when the prompts carry
// tests, the code's execution score), with PPO or GRPO. The stage lives in @rlhf-code/rl (runPpo); this file turns
// flags into its settings, draws the held-out chart (libs/eval's, a layer above rl) and prints one JSON line per run.
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { printStageResult, runCli, settingsCommand } from '@rlhf-code/cli';
import { heldOutSpec, renderSvg } from '@rlhf-code/eval';
import { shutdownBackend } from '@rlhf-code/backend';
import { HELDOUT_SVG, PpoSettings, runPpo, type HeldOutPlot } from '@rlhf-code/rl';

/** heldout.svg in --out, redrawn after each held-out measurement; a failure to draw is a warning. */
function heldOutPlot(f: PpoSettings): HeldOutPlot {
  const svg = path.join(f.out, HELDOUT_SVG);
  return async (history) => {
    try {
      fs.writeFileSync(svg, await renderSvg(heldOutSpec(history)));
    } catch (e) {
      console.error(`ppo: warning: could not draw ${svg}: ${(e as Error).message}`);
    }
  };
}

const program = new Command('ppo').description('Reinforcement learning of a code policy: PPO (critic = value head) or GRPO (critic-free).');
settingsCommand(
  program
    .command('train')
    .description(
      'RL from the SFT checkpoint against the reward model (+ execution score); saves the policy in Hugging Face layout. ' +
        "PPO's critic is a value head (v_head) on the policy's own final hidden states (no second model: CPU budget), " +
        "initialised from the reward model's score head when the widths match.",
    ),
  PpoSettings,
  async (f) => printStageResult(await runPpo(f, heldOutPlot(f))),
);

runCli(program, shutdownBackend);
