// Run with tsx (not jest): reads an eval.json report (or, with the argument `heldout`, a JSON array of PPO
// held-out records) on stdin, prints the chart SVG on stdout. chart.test.ts uses it because jest cannot import
// vega's ES modules.
import { chartSpec, heldOutSpec, renderSvg } from '../chart';

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  process.stdout.write(await renderSvg(process.argv[2] === 'heldout' ? heldOutSpec(input) : chartSpec(input)));
}

void main();
