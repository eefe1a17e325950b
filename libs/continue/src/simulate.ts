// `online simulate`: the simulated Continue user against running servers (runSimulation), from its settings: the FIM
// examples of one split, the prompt tokens counted by the model's tokenizer, the whole files from the corpus folder;
// prints the summary (and writes it as JSON with --json).
import { UsageError } from '@rlhf-code/cli';
import { corpusFiles, readFimData, writeJsonl } from '@rlhf-code/data';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import type { SimulateSettings } from './settings';
import { simUser } from './sim-users';
import { formatSummary, runSimulation } from './simulator';

export async function runSimulate(f: SimulateSettings): Promise<void> {
  const all = await readFimData(f.data);
  const examples = f.split === 'all' ? all : all.filter((e) => e.split === f.split);
  if (examples.length === 0) throw new UsageError(`--split: ${f.data} has no "${f.split}" examples`);
  const tok = loadTokenizer(f.tokenizer);
  process.stdout.write(`[sim] ${examples.length} ${f.split} examples from ${f.data}; ${f.events} requests to ${f.completionUrl}\n`);
  const summary = await runSimulation({
    examples,
    events: f.events,
    completionUrl: f.completionUrl,
    feedbackUrl: f.feedback ? f.feedbackUrl : null,
    token: f.token,
    project: f.project,
    apiKey: f.apiKey,
    model: f.model,
    maxPromptTokens: f.maxPromptTokens,
    countTokens: (text) => tok.encode(text, { parseSpecialTokens: false }).length,
    seed: f.seed,
    reportEvery: f.reportEvery,
    user: simUser(f.user),
    form: f.form,
    fileOf: corpusFiles(f.corpus),
    rejectDelay: f.rejectDelay,
    clock: f.clock,
  });
  process.stdout.write(formatSummary(summary) + '\n');
  if (f.json) {
    await writeJsonl(f.json, [summary]);
    process.stdout.write(`[sim] summary written to ${f.json}\n`);
  }
}
