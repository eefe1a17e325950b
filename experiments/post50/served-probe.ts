// Why v2 is silent in online:experiment where eval:base shows it (issue 50, session 16): the same FIM examples,
// greedy, 64 new tokens, at least 1, in three prompt forms: eval:base's (the example's prefix and suffix as they are),
// Continue 1.3.9's without context (prefix <= 30% and suffix <= 20% of 1,024 tokens, a `# path` comment line before
// the code) and with the context the simulator adds (the 30 lines before the cursor of another file, as `# ` comments).
// Per model and form: the share of completions Continue shows nothing for, and the share the exact user accepts.
//   node --import tsx experiments/post50/served-probe.ts results/remeasure-v2/base-v1 results/post50-c2/E/base [N]
import { readFileSync } from 'node:fs';
import { Qwen2Model } from '@rlhf-code/model';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { completeFim } from '@rlhf-code/eval';
import { acceptsCompletion, continuePrompt, contextSnippet, showCompletion } from '@rlhf-code/continue';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';

const args = process.argv.slice(2);
const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 150);
const models = args.filter((a) => !/^\d+$/.test(a));
const all = readFileSync('data/fim/fim_test.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { prefix: string; suffix: string; middle: string; path: string });
const examples = all.slice(0, n);

async function main() {
  await initBackend();
  console.log('| model | prompt form | shown nothing | accepted (exact user) |');
  console.log('| --- | --- | ---: | ---: |');
  for (const dir of models) {
    const tok = loadTokenizer(dir);
    const model = await Qwen2Model.load(dir);
    const count = (t: string) => tok.encode(t).length;
    const forms = {
      'eval:base': examples.map((e) => ({ prefix: e.prefix, suffix: e.suffix, code: e.prefix })),
      'continue, no context': examples.map((e) => {
        const p = continuePrompt(e.path, e.prefix, e.suffix, count, 1024, { snippets: [] });
        return { prefix: p.prefix, suffix: p.suffix, code: p.code };
      }),
      'continue, context': examples.map((e, i) => {
        const other = all.slice(i + 1).concat(all).find((o) => o.path !== e.path)!;
        const p = continuePrompt(e.path, e.prefix, e.suffix, count, 1024, { snippets: [contextSnippet(other)] });
        return { prefix: p.prefix, suffix: p.suffix, code: p.code };
      }),
    };
    for (const [name, cases] of Object.entries(forms)) {
      const done = await completeFim(model, tok, cases, { maxNewTokens: 64, minNewTokens: 1, batchSize: 8 });
      let silent = 0;
      let accepted = 0;
      done.forEach((d, i) => {
        const shown = showCompletion(d.text, cases[i].code, cases[i].suffix);
        if (shown === null) silent++;
        else if (acceptsCompletion(shown, examples[i].middle)) accepted++;
      });
      console.log(`| ${dir} | ${name} | ${(silent / n).toFixed(3)} | ${(accepted / n).toFixed(3)} |`);
    }
    model.dispose();
  }
  await shutdownBackend();
}
main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
