// The live page's chart renderer, in a worker thread: vega-lite spec -> vega -> SVG. Drawing a chart takes tens of
// ms of CPU; in the service's thread that would hold every decoding step and every status answer meanwhile.
//   message in   { id, specs: [vega-lite spec, ...] }
//   message out  { id, svgs: [svg, ...] } or { id, error }
// Plain JavaScript: a worker thread does not get the TypeScript loader of its parent under every runner (jest, tsx),
// and vega and vega-lite are ES modules only, which a dynamic import() loads here under any of them.
'use strict';
const { parentPort } = require('worker_threads');

let libs = null;
const load = () => (libs ??= Promise.all([import('vega-lite'), import('vega')]));

async function render(vl, vega, spec) {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

parentPort.on('message', async ({ id, specs }) => {
  try {
    const [vl, vega] = await load();
    const svgs = [];
    for (const spec of specs) svgs.push(await render(vl, vega, spec));
    parentPort.postMessage({ id, svgs });
  } catch (e) {
    parentPort.postMessage({ id, error: (e && e.message) || String(e) });
  }
});
