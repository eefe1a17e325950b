// Issue 52: what consecutive prompts of the typing session share (PSM text as Continue sends it): the longest common
// prefix, and what cacheReusePlan keeps with runs of 16. Needs /tmp/q05 (run.sh makes it).
//   node --import tsx experiments/lat52/prompt-diff.ts
import { readFimData } from '../../libs/data/src';
import { typingSession } from '../../libs/online-bench/src/typing';
import { loadTokenizer } from '../../libs/tokenizer/src';
import { cacheReusePlan } from '../../libs/engine/src/llamacpp';
async function main() {
  const tok = loadTokenizer('/tmp/q05');
  const count = (t: string) => tok.encode(t, { parseSpecialTokens: false }).length;
  const cases = (await readFimData('data/fim/fim.jsonl')).filter((e) => e.split === 'test').map((e) => ({ prefix: e.prefix, suffix: e.suffix, middle: e.middle, path: e.path ?? 'untitled.py' }));
  const s = typingSession(cases, 'v139', count, 1024, 30);
  let prev: number[] = [];
  for (const r of s.requests) {
    const ids = tok.encode(r.prompt);
    let lcp = 0; while (lcp < prev.length && lcp < ids.length && prev[lcp] === ids[lcp]) lcp++;
    const p16 = cacheReusePlan(prev, ids, 16);
    console.log(ids.length, 'lcp', lcp, 'reuse16', p16.kept, 'at', JSON.stringify(tok.decode(ids.slice(Math.max(0, lcp - 3), lcp + 8))));
    prev = ids;
  }
}
main();
