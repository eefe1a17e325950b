#!/usr/bin/env node
// A pipeline script's preset, configs/<script>/<preset>.yaml: one section per stage, each the --config file of that
// stage's settings (keys as its --print-config prints them), and `script:`, the script's own knobs (named as the
// environment variables that override them). `extends: FILE` (next to it) starts from another preset, section by
// section: a key of this file replaces the same key of FILE's section. Used by tools/stages.sh:
//   node tools/preset.cjs FILE config SECTION...   the sections merged (a later one's keys win), as JSON: a --config file
//   node tools/preset.cjs FILE script              the `script:` knobs as NAME=value lines
//   node tools/preset.cjs FILE value SECTION.KEY   one setting (a list joined by commas, as its flag takes it)
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

function fail(message) {
  process.stderr.write(`preset: ${message}\n`);
  process.exit(2);
}

const isMapping = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The preset in `file` with its `extends` chain resolved: { section: { key: value } }. */
function readPreset(file, seen = []) {
  if (seen.includes(file)) fail(`${file}: extends itself (${[...seen, file].join(' -> ')})`);
  let doc;
  try {
    doc = YAML.parse(fs.readFileSync(file, 'utf8')) ?? {};
  } catch (e) {
    fail(`${file}: ${e.code === 'ENOENT' ? 'not found' : e.message.split('\n')[0]}`);
  }
  if (!isMapping(doc)) fail(`${file}: expected a mapping of sections`);
  const { extends: parent, ...sections } = doc;
  for (const [name, values] of Object.entries(sections)) {
    if (!isMapping(values)) fail(`${file}: section "${name}" is not a mapping of settings`);
  }
  const base = parent === undefined ? {} : readPreset(path.join(path.dirname(file), String(parent)), [...seen, file]);
  const out = { ...base };
  for (const [name, values] of Object.entries(sections)) out[name] = { ...base[name], ...values };
  return out;
}

const show = (v) => (Array.isArray(v) ? v.join(',') : String(v));

const [file, command, ...args] = process.argv.slice(2);
if (!file || !['config', 'script', 'value'].includes(command)) fail('usage: preset.cjs FILE config SECTION... | script | value SECTION.KEY');
const preset = readPreset(file);
const section = (name) => preset[name] ?? fail(`${file}: no section "${name}"`);
if (command === 'config') {
  if (args.length === 0) fail('config: name at least one section');
  process.stdout.write(JSON.stringify(Object.assign({}, ...args.map(section)), null, 2) + '\n');
} else if (command === 'script') {
  for (const [name, value] of Object.entries(preset.script ?? {})) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) fail(`${file}: script.${name}: expected an environment variable's name`);
    process.stdout.write(`${name}=${show(value)}\n`);
  }
} else {
  const [name, key] = String(args[0] ?? '').split('.');
  const values = section(name);
  if (!key || !(key in values)) fail(`${file}: no setting "${args[0]}"`);
  process.stdout.write(show(values[key]) + '\n');
}
