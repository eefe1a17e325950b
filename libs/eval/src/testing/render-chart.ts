// Run with tsx (not jest): reads an eval.json report on stdin, prints the chart SVG on stdout. chart.test.ts
// uses it because jest cannot import vega's ES modules.
import { chartSpec, renderSvg } from '../chart';

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  process.stdout.write(await renderSvg(chartSpec(JSON.parse(Buffer.concat(chunks).toString('utf8')))));
}

void main();
