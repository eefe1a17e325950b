#!/usr/bin/env node
// A pipeline script's preset, configs/<script>/<preset>.yaml: one section per stage, each the --config file of that
// stage's settings (keys as its --print-config prints them), and `script:`, the script's own knobs (named as the
// environment variables that override them). `extends: FILE` (next to it) starts from another preset, section by
// section: a key of this file replaces the same key of FILE's section.
//
// SET (an environment variable of the scripts) overrides settings of the sections, as an edit of the preset file would:
//   SET='sft.epochs=3 rl.lr=1e-5 eval-dev.temperatures=[0,0.5]'
// entries SECTION.KEY=VALUE separated by spaces (none inside a value outside brackets or quotes), KEY as the preset and
// --print-config name it (camelCase; a.b for a group's key), VALUE a YAML value (a number, a word, true/false, a list
// [a,b]). A section's SET values replace its own keys before the sections of a stage are merged. Used by tools/stages.sh:
//   node tools/preset.cjs FILE config SECTION...    the sections merged (a later one's keys win), as JSON: a --config file
//   node tools/preset.cjs FILE script               the `script:` knobs as NAME=value lines
//   node tools/preset.cjs FILE value SECTION.KEY    one setting (a list joined by commas, as its flag takes it)
//   node tools/preset.cjs - set-check 'KEY...' SECTION...
//                                                   SET's entries are well formed, name sections these (the stages of
//                                                   the run) read, and none of the KEYs (key, or section.key: those the
//                                                   script gives its stages itself as flags: paths, seeds, its knobs)
//   node tools/preset.cjs - set-keys SECTION...     the keys SET gives these sections, one a line
//   node tools/preset.cjs FILE check 'NAME (TARGET)' CONFIG SECTION... -- COMMAND...
//                                                   when SET gives one of these sections: runs COMMAND --config CONFIG
//                                                   --print-config (the stage's own schema checks the file) and turns
//                                                   its errors about SET's keys into errors naming the SET entry; and
//                                                   notes an entry a later section of the stage overrides
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
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

/** SET's text as words: split at spaces outside [], {} and quotes. */
function words(text) {
  const out = [];
  let word = '';
  let depth = 0;
  let quote = null;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (/\s/.test(c) && depth <= 0) {
      if (word) out.push(word);
      word = '';
      continue;
    }
    word += c;
  }
  if (quote || depth > 0) fail(`SET: an unclosed ${quote ? `quote (${quote})` : 'bracket'} in '${text}'`);
  if (word) out.push(word);
  return out;
}

/** SET's entries, in order: { text, section, key (a.b inside a group), path (the key's parts), value }. */
function setEntries(text = process.env.SET ?? '') {
  return words(text).map((w) => {
    const eq = w.indexOf('=');
    const name = eq < 0 ? w : w.slice(0, eq);
    const m = /^([A-Za-z][\w-]*)\.([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)$/.exec(name);
    if (eq < 0 || !m) fail(`SET: '${w}' is not SECTION.KEY=VALUE (e.g. SET='rl.lr=1e-5 sft.epochs=3')`);
    const raw = w.slice(eq + 1);
    if (raw === '') fail(`SET ${w}: no value`);
    let value;
    try {
      value = YAML.parse(raw);
    } catch (e) {
      fail(`SET ${w}: the value is not YAML (${e.message.split('\n')[0]})`);
    }
    if (value === null || value === undefined) fail(`SET ${w}: no value`);
    return { text: w, section: m[1], key: m[2], path: m[2].split('.'), value };
  });
}

/** `values` with SET's entries for `section` over them (a group's key set inside its group). */
function withSet(section, values, entries) {
  const out = structuredClone(values ?? {});
  for (const e of entries.filter((x) => x.section === section)) {
    let at = out;
    for (const k of e.path.slice(0, -1)) at = isMapping(at[k]) ? at[k] : (at[k] = {});
    at[e.path[e.path.length - 1]] = e.value;
  }
  return out;
}

const show = (v) => (Array.isArray(v) ? v.join(',') : String(v));

const [file, command, ...args] = process.argv.slice(2);
const commands = ['config', 'script', 'value', 'set-check', 'set-keys', 'check'];
if (!file || !commands.includes(command)) {
  fail('usage: preset.cjs FILE config SECTION... | FILE script | FILE value SECTION.KEY | - set-check KEYS SECTION... | - set-keys SECTION... | FILE check STAGE CONFIG SECTION... -- COMMAND...');
}
const entries = setEntries();

if (command === 'set-check') {
  const [keys = '', ...sections] = args;
  const own = keys.split(/\s+/).filter(Boolean);
  const read = new Set(sections);
  for (const e of entries) {
    if (e.section === 'script') fail(`SET ${e.text}: the script's own knobs are environment variables: ${e.key}=${show(e.value)}`);
    if (!read.has(e.section)) fail(`SET ${e.text}: no stage of this run reads a section "${e.section}" (they read: ${[...read].join(', ')})`);
    const mine = own.filter((k) => k === e.path[0] || k === `${e.section}.${e.path[0]}`);
    if (mine.length > 0) fail(`SET ${e.text}: the script gives "${e.path[0]}" itself, as a flag from its own knobs and paths (MODEL_PATH, RESULTS, SEED, LORA_RANK, RM_PROBLEMS, EVAL_LIMIT, ...): a SET of it would not reach the stage`);
  }
} else if (command === 'set-keys') {
  for (const e of entries) if (args.includes(e.section)) process.stdout.write(`${e.key}\n`);
} else if (command === 'check') {
  const dash = args.indexOf('--');
  if (dash < 3) fail("check: usage: FILE check 'NAME (TARGET)' CONFIG SECTION... -- COMMAND...");
  const [stage, config, ...sections] = args.slice(0, dash);
  const [cmd, ...cmdArgs] = args.slice(dash + 1);
  const mine = entries.filter((e) => sections.includes(e.section));
  if (mine.length === 0) process.exit(0);
  // A later section's own key wins over an earlier section's SET (as it would over an edit of that section).
  const preset = readPreset(file);
  for (const e of mine) {
    const later = sections.slice(sections.lastIndexOf(e.section) + 1);
    const over = later.filter((s) => preset[s] && e.path[0] in preset[s] && !entries.some((x) => x.section === s && x.path[0] === e.path[0]));
    if (over.length > 0) {
      const s = over[over.length - 1];
      process.stderr.write(`preset: note: SET ${e.text} does not reach stage ${stage}: its section ${s} sets ${e.path[0]}: ${JSON.stringify(preset[s][e.path[0]])} (SET='${s}.${e.path[0]}=...' changes that)\n`);
    }
  }
  const r = spawnSync(cmd, [...cmdArgs, '--config', config, '--print-config'], { encoding: 'utf8' });
  if (r.status === 0) process.exit(0);
  // Errors name `--config CONFIG: KEY: problem`; a KEY from SET is named as its entry (the last section's, as it wins).
  const prefix = `--config ${config}: `;
  const lines = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n');
  for (const line of lines) {
    const at = line.indexOf(prefix);
    const rest = at < 0 ? '' : line.slice(at + prefix.length);
    const key = rest.slice(0, rest.indexOf(': '));
    const entry = [...mine].reverse().find((e) => e.key === key || key.startsWith(e.key + '.'));
    const problem = rest.slice(key.length + 2);
    const target = stage.slice(stage.indexOf('(') + 1, -1);
    const keys = problem.startsWith('unknown setting') ? ` (its settings: npx nx run ${target}${target.includes(' -- ') ? '' : ' --'} --print-config)` : '';
    process.stderr.write(entry ? `preset: SET ${entry.text}: ${problem} in stage ${stage}${keys}\n` : `preset: SET: stage ${stage} refuses its --config file: ${line}\n`);
  }
  process.exit(2);
} else {
  const preset = readPreset(file);
  const section = (name) => withSet(name, preset[name] ?? fail(`${file}: no section "${name}"`), entries);
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
}
