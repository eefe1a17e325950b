// tool-rl: multi-turn RL in which the model calls a Python interpreter. The stages live in libs/agent;
// this file turns flags into their settings and prints one JSON line per run.
//   warmstart  SFT on synthetic tool-use traces (the format, before RL)
//   train      GRPO over episodes with the interpreter (stateful or stateless)
//   eval       success on held-out tasks per checkpoint and interpreter, paired against a baseline row
import { Command } from 'commander';
import { printStageResult, runCli, settingsCommand } from '@rlhf-code/cli';
import { runToolEval, runToolGrpo, runToolWarmStart, ToolEvalSettings, ToolGrpoSettings, ToolWarmStartSettings } from '@rlhf-code/agent';
import { shutdownBackend } from '@rlhf-code/backend';

const program = new Command('tool-rl').description('Multi-turn RL with a Python interpreter tool: SFT warm-start, GRPO over episodes, evaluation on held-out kinds of task.');
settingsCommand(
  program.command('warmstart').description('SFT on traces that make each task\'s reference calls in the checkpoint\'s chat template and state the result; the loss on the model\'s turns only.'),
  ToolWarmStartSettings,
  async (f) => printStageResult(await runToolWarmStart(f)),
);
settingsCommand(
  program
    .command('train')
    .description('GRPO over multi-turn episodes: the policy calls the interpreter in <tool_call> blocks, its answers come back as tool turns; reward = task success; only the model\'s own tokens are trained.'),
  ToolGrpoSettings,
  async (f) => printStageResult(await runToolGrpo(f)),
);
settingsCommand(
  program.command('eval').description('Success, tool calls, turns and malformed-call rate on held-out tasks for each --runs row (checkpoint + interpreter), each paired per task with --baseline; writes --out.'),
  ToolEvalSettings,
  async (f) => {
    const r = await runToolEval(f);
    console.log(JSON.stringify({ stage: 'tool-eval', out: f.out, n_tasks: r.n_tasks, samples_per_task: r.samples_per_task }));
  },
);

runCli(program, shutdownBackend);
