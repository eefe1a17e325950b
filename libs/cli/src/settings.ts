// Settings declared once: a stage's zod schema (fields with .default() and .describe(), optionally
// .meta({ env: 'VAR' })) gives its command-line flags, its --help, its --config file format and its --print-config
// (settingsCommand, command.ts, builds the command from these pieces).
//
// Precedence, lowest first: the schema's defaults < the --config file (JSON or YAML) < environment variables < flags.
// The schema is a strict object, or a discriminated union of strict objects (e.g. algo: ppo | grpo), possibly behind
// a z.preprocess that fills in the discriminator's default. Flags are the field names in kebab case (maxNewTokens ->
// --max-new-tokens); a boolean that defaults to true is turned off with --no-<name>. Every error names where the bad
// value came from: the flag, the environment variable, or the file and its key.
//
// A field that is itself a strict object is a group (a section of the --config file, e.g. training: {lr, ...}): its
// fields' flags carry the group's name (training.batchSize -> --training-batch-size) and --help lists them under the
// group's heading. .meta({ flag: 'name' }) names a field's flag instead (training.lr -> --lr); fields that name the
// same flag are set together by it (completion.host and feedback.host by one --host). .meta({ flag: false }) keeps a
// field off the command line: only a --config file sets it (e.g. a list of objects).
import * as fs from 'fs';
import { Command, Option } from 'commander';
import YAML from 'yaml';
import { z } from 'zod';
import { flagName, UsageError } from './flags';

type Kind = 'int' | 'number' | 'string' | 'boolean' | 'enum' | 'list' | 'numbers';

/** One setting as the command line sees it. */
export interface SettingField {
  /** Its place in the settings: `lr`, or `training.lr` inside a group. */
  key: string;
  path: string[];
  flag: string;
  kind: Kind;
  choices?: string[];
  /** Words a number setting also takes (a union of a number and literals, e.g. `number | 'cv'`). */
  words?: string[];
  description: string;
  /** Environment variable that sets it (the field's .meta({ env })). */
  env?: string;
  /** Default per variant of a union ('' for a plain object); absent when the field has none. */
  defaults: Map<string, unknown>;
  /** Discriminator values of the variants that have the field; empty for a plain object. */
  variants: string[];
  /** A list given by repeating the flag (.meta({ repeat: true })) instead of separating values with commas. */
  repeat: boolean;
  /** The --help heading of its group; '' at the top level. */
  group: string;
  /** The flag was named by .meta({ flag }): fields naming the same one share it. */
  namedFlag: boolean;
}

interface Unwrapped {
  inner: z.ZodType;
  meta: Record<string, unknown>;
  hasDefault: boolean;
  defaultValue: unknown;
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  defaultValue?: unknown;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
  values?: unknown[];
  discriminator?: string;
};
const defOf = (t: z.ZodType) => (t as unknown as { _zod: { def: Def } })._zod.def;

/** Strip default / optional / nullable wrappers, merging their metadata (the outer one wins). */
function unwrap(t: z.ZodType): Unwrapped {
  const metas: Record<string, unknown>[] = [];
  let hasDefault = false;
  let defaultValue: unknown;
  for (;;) {
    metas.push(t.meta() ?? {});
    const d = defOf(t);
    if (d.type === 'default' && !hasDefault) {
      hasDefault = true;
      defaultValue = d.defaultValue;
    }
    if ((d.type === 'default' || d.type === 'optional' || d.type === 'nullable' || d.type === 'prefault') && d.innerType) t = d.innerType;
    else break;
  }
  return { inner: t, meta: Object.assign({}, ...metas.reverse()), hasDefault, defaultValue };
}

/** The object a group field holds (a strict object, possibly with a .transform() after it); undefined for a setting. */
function groupObject(t: z.ZodType): z.ZodObject | undefined {
  const d = defOf(t);
  if (d.type === 'object') return t as z.ZodObject;
  if (d.type === 'pipe' && d.in && d.out && defOf(d.out).type === 'transform') return groupObject(d.in);
  return undefined;
}

function kindOf(key: string, t: z.ZodType): { kind: Kind; choices?: string[]; words?: string[] } {
  const d = defOf(t);
  switch (d.type) {
    case 'number':
      return { kind: (t as z.ZodNumber).isInt ? 'int' : 'number' };
    case 'string':
      return { kind: 'string' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'enum':
      return { kind: 'enum', choices: (t as z.ZodEnum).options.map(String) };
    case 'literal':
      return { kind: 'enum', choices: (d.values ?? []).map(String) };
    case 'array': {
      const element = d.element ? defOf(d.element).type : '';
      if (element === 'string' || element === 'enum') return { kind: 'list' };
      if (element === 'number') return { kind: 'numbers' };
      break;
    }
    case 'union': {
      // a number or one of some words (e.g. a penalty, or 'cv' to choose it)
      const parts = (d.options ?? []).map((o) => kindOf(key, o));
      const numbers = parts.filter((p) => p.kind === 'number' || p.kind === 'int');
      const words = parts.filter((p) => p.kind === 'enum');
      if (numbers.length === 1 && numbers.length + words.length === parts.length) return { kind: numbers[0].kind, words: words.flatMap((p) => p.choices ?? []) };
    }
  }
  throw new Error(`settings: field "${key}" has type ${d.type}, which has no command-line form (.meta({ flag: false }) leaves it to --config files)`);
}

/** The objects of a settings schema (one, or one per union variant) and the union's discriminator. */
function variantsOf(schema: z.ZodType): { objects: z.ZodObject[]; discriminator?: string } {
  const d = defOf(schema);
  if (d.type === 'object') return { objects: [schema as z.ZodObject] };
  if (d.type === 'pipe' && d.out) return variantsOf(d.out);
  if (d.type === 'union' && d.options) {
    const objects = d.options.map((o) => variantsOf(o).objects).flat();
    return { objects, discriminator: d.discriminator };
  }
  throw new Error(`settings: a settings schema is an object or a discriminated union of objects, not ${d.type}`);
}

/** The fields by flag: one flag sets every field that names it. */
function byFlag(fields: SettingField[]): Map<string, SettingField[]> {
  const m = new Map<string, SettingField[]>();
  for (const f of fields) m.set(f.flag, [...(m.get(f.flag) ?? []), f]);
  return m;
}

/** Every field of a settings schema, in declaration order (a union's fields once each; a group's fields in its place). */
export function settingFields(schema: z.ZodType): SettingField[] {
  return walk(schema).fields;
}

/** The fields with a flag, and those only a --config file sets (key and description). */
function walk(schema: z.ZodType): { fields: SettingField[]; fileOnly: [string, string][] } {
  const { objects, discriminator } = variantsOf(schema);
  const fields = new Map<string, SettingField>();
  const fileOnly = new Map<string, string>();
  const collect = (obj: z.ZodObject, prefix: string[], group: string, variant: string) => {
    for (const [name, t] of Object.entries(obj.shape)) {
      if (prefix.length === 0 && (name === 'config' || name === 'printConfig')) throw new Error(`settings: "${name}" is reserved for --config / --print-config`);
      const path = [...prefix, name];
      const key = path.join('.');
      const u = unwrap(t);
      if (u.meta.flag === false) {
        fileOnly.set(key, String(u.meta.description ?? ''));
        continue;
      }
      const members = groupObject(u.inner);
      if (members) {
        collect(members, path, u.meta.description ? `${key} (${String(u.meta.description)}):` : `${key}:`, variant);
        continue;
      }
      const { kind, choices, words } = kindOf(key, u.inner);
      let f = fields.get(key);
      if (!f) {
        const named = typeof u.meta.flag === 'string';
        f = {
          key,
          path,
          flag: named ? `--${String(u.meta.flag)}` : '--' + path.map((k) => flagName(k).slice(2)).join('-'),
          kind,
          choices,
          words,
          description: String(u.meta.description ?? ''),
          env: u.meta.env as string | undefined,
          defaults: new Map(),
          variants: [],
          repeat: u.meta.repeat === true,
          group,
          namedFlag: named,
        };
        fields.set(key, f);
      } else if (key === discriminator) {
        f.choices = [...(f.choices ?? []), ...(choices ?? [])];
      }
      if (u.hasDefault) f.defaults.set(variant, u.defaultValue);
      if (discriminator && key !== discriminator) f.variants.push(variant);
      if (!f.description && u.meta.description) f.description = String(u.meta.description);
    }
  };
  for (const obj of objects) collect(obj, [], '', discriminator ? String(defOf(unwrap(obj.shape[discriminator]).inner).values?.[0]) : '');
  // The discriminator's default: what the whole schema makes of an input without it.
  if (discriminator) {
    const r = schema.safeParse({});
    const f = fields.get(discriminator)!;
    if (r.success) f.defaults.set('', (r.data as Record<string, unknown>)[discriminator]);
    f.variants = [];
  }
  const all = [...fields.values()];
  for (const [flag, same] of byFlag(all)) {
    if (same.length > 1 && !same.every((f) => f.namedFlag && f.kind === same[0].kind)) {
      throw new Error(`settings: ${same.map((f) => `"${f.key}"`).join(' and ')} would share ${flag} (a shared flag is named by .meta({ flag }) on each, of one type)`);
    }
  }
  return { fields: all, fileOnly: [...fileOnly.entries()] };
}

const show = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));

function helpText(f: SettingField, variantCount: number): string {
  let text = f.description;
  if (f.variants.length > 0 && f.variants.length < variantCount) text += ` (${f.variants.join(', ')} only)`;
  const ds = [...f.defaults.entries()].filter(([, v]) => !(Array.isArray(v) && v.length === 0)); // an empty list: nothing to show
  const distinct = new Set(ds.map(([, v]) => JSON.stringify(v)));
  if (f.kind !== 'boolean' || ds.some(([, v]) => v === true)) {
    if (distinct.size === 1) text += ` (default: ${show(ds[0][1])})`;
    else if (distinct.size > 1) text += ` (default: ${ds.map(([k, v]) => `${show(v)} with ${k}`).join(', ')})`;
  }
  return text;
}

const ARG: Record<Kind, string> = { int: '<n>', number: '<x>', string: '<value>', boolean: '', enum: '<name>', list: '<a,b,...>', numbers: '<n,m,...>' };

/**
 * Add one option per flag of `schema` and of each of `groups` (groups of settings every command shares, e.g. the runtime
 * group: their top-level keys are reserved), plus --config and --print-config. Commander gets no defaults: they live
 * in the schemas.
 */
export function addSettingOptions(cmd: Command, schema: z.ZodType, groups: z.ZodType[] = []): Command {
  const variantCount = variantsOf(schema).objects.length;
  const own = walk(schema);
  const shared = groups.map((g) => walk(g));
  const top = (w: ReturnType<typeof walk>) => new Set([...w.fields.map((f) => f.path[0]), ...w.fileOnly.map(([k]) => k.split('.')[0])]);
  const ownTop = top(own);
  for (const w of shared) for (const k of top(w)) if (ownTop.has(k)) throw new Error(`settings: "${k}" is reserved for the settings every command has`);
  const fields = [...own.fields, ...shared.flatMap((w) => w.fields)];
  const fileOnly = [...own.fileOnly, ...shared.flatMap((w) => w.fileOnly)];
  for (const [flag, same] of byFlag(fields)) {
    if (same.length > 1 && !same.every((f) => f.namedFlag && f.kind === same[0].kind)) {
      throw new Error(`settings: ${same.map((f) => `"${f.key}"`).join(' and ')} would share ${flag} (a shared flag is named by .meta({ flag }) on each, of one type)`);
    }
  }
  for (const [flag, same] of byFlag(fields)) {
    const f = same[0];
    const negated = f.kind === 'boolean' && same.some((x) => [...x.defaults.values()].some((v) => v === true));
    const arg = f.words ? `<${ARG[f.kind].slice(1, -1)}|${f.words.join('|')}>` : ARG[f.kind];
    const flags = f.kind === 'boolean' ? (negated ? `--no-${flag.slice(2)}` : flag) : `${flag} ${arg}`;
    const sharedBy = same.length > 1 ? ` (sets ${same.map((x) => x.key).join(' and ')})` : '';
    // The environment is read by resolveSettings, not commander (which takes a boolean option's variable as set
    // whatever its value): the help names it.
    const env = same.find((x) => x.env)?.env;
    const help = helpText(f, variantCount) + sharedBy + (f.repeat ? ' (repeat the flag for several)' : '') + (env ? ` (env: ${env})` : '');
    const opt = new Option(f.repeat ? `${flag} <value>` : flags, help);
    if (f.repeat) opt.argParser((v: string, acc: unknown) => [...(Array.isArray(acc) ? acc : []), v]);
    if (f.choices) opt.choices(f.choices);
    if (f.group && same.length === 1) opt.helpGroup(f.group);
    cmd.addOption(opt);
  }
  const fileKeys = fileOnly.map(([key, description]) => `${key}${description ? ` (${description})` : ''}`);
  cmd.option(
    '--config <file>',
    'read settings from this JSON or YAML file (keys as printed by --print-config); flags and environment variables override it' +
      (fileKeys.length > 0 ? `; only a file sets ${fileKeys.join(', ')}` : ''),
  );
  cmd.option('--print-config', 'print the settings this command would run with (defaults < --config < environment < flags) as JSON, and exit');
  return cmd;
}

/** A flag's or variable's text as the field's type; errors name `where`. */
function convert(f: SettingField, raw: unknown, where: string): unknown {
  if (typeof raw !== 'string') return raw; // booleans from commander
  if (f.words?.includes(raw)) return raw;
  switch (f.kind) {
    case 'int':
    case 'number': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (Number.isNaN(n)) throw new UsageError(`${where}: expected a number${f.words ? ` or ${f.words.join(' or ')}` : ''}, got "${raw}"`);
      return n;
    }
    case 'boolean':
      if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
      if (['0', 'false', 'no', ''].includes(raw.toLowerCase())) return false;
      throw new UsageError(`${where}: expected true or false, got "${raw}"`);
    case 'list':
      return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    case 'numbers':
      return raw.split(',').map((s) => {
        const n = s.trim() === '' ? NaN : Number(s);
        if (Number.isNaN(n)) throw new UsageError(`${where}: expected numbers separated by commas, got "${raw}"`);
        return n;
      });
    default:
      return raw;
  }
}

/** Read a settings file (named by `flag` in errors): a JSON or YAML mapping. */
export function readConfigFile(file: string, flag = '--config'): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag} ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let value: unknown;
  try {
    value = YAML.parse(text); // YAML 1.2 reads JSON as well
  } catch (e) {
    throw new UsageError(`${flag} ${file}: not valid JSON or YAML (${(e as Error).message.split('\n')[0]})`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${flag} ${file}: expected a mapping of settings, got ${Array.isArray(value) ? 'a list' : typeof value}`);
  return value as Record<string, unknown>;
}

const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Plain objects merge key by key; lists and scalars of `over` replace those of `base`. */
function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Json, v) : v;
  return out;
}

function setPath(target: Json, path: string[], value: unknown): void {
  let at = target;
  for (const k of path.slice(0, -1)) at = (at[k] = isObject(at[k]) ? at[k] : {}) as Json;
  at[path[path.length - 1]] = value;
}

function hasPath(value: unknown, path: PropertyKey[]): boolean {
  let at = value;
  for (const k of path) {
    if (typeof at !== 'object' || at === null || !(String(k) in at)) return false;
    at = (at as Json)[String(k)];
  }
  return true;
}

/** One source of values (a file, the environment, the flags) and how an error names a place in it. */
type Layer = { name: (path: PropertyKey[]) => string; values: Json };

/** The field at or above `path` (a list's items are below their field), and the rest of the path. */
function fieldAt(fields: Map<string, SettingField>, path: PropertyKey[]): { field: SettingField; rest: PropertyKey[] } | undefined {
  for (let i = path.length; i > 0; i--) {
    const field = fields.get(path.slice(0, i).map(String).join('.'));
    if (field) return { field, rest: path.slice(i) };
  }
  return undefined;
}

/** A layer read from a settings file: errors name `flag file: key.path`. */
const fileLayer = (file: string, flag: string, values: Json): Layer => ({ name: (p) => `${flag} ${file}: ${p.map(String).join('.')}`, values });

/** One line per problem of `merged` (the layers merged, lowest first), each naming the topmost layer that gave the bad value. */
function explain(schema: z.ZodType, error: z.ZodError, layers: Layer[], merged: Json): string {
  const fields = new Map(settingFields(schema).map((f) => [f.key, f]));
  const discriminator = variantsOf(schema).discriminator;
  const from = (path: PropertyKey[]) => [...layers].reverse().find((l) => hasPath(l.values, path));
  const known = (key: string) => fields.has(key) || [...fields.keys()].some((k) => k.startsWith(key + '.'));
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys
          .map((k) => {
            const path = [...issue.path, k];
            const where = from(path)?.name(path) ?? path.map(String).join('.');
            const f = fields.get(path.join('.'));
            if (f && discriminator) return `${where}: only with ${discriminator} ${f.variants.join(' or ')}, not ${discriminator} ${String(merged[discriminator] ?? fields.get(discriminator)!.defaults.get(''))}`;
            const meant = [...issue.path.map(String), camel(k)].join('.');
            const hint = camel(k) !== k && known(meant) ? ` (did you mean "${camel(k)}"?)` : '';
            return `${where}: unknown setting${hint}`;
          })
          .join('\n');
      }
      const at = fieldAt(fields, issue.path);
      const where = from(issue.path)?.name(issue.path) ?? (at ? at.field.flag : issue.path.length > 0 ? issue.path.map(String).join('.') : '(settings)');
      if (issue.code === 'invalid_type' && at && at.rest.length === 0 && !hasPath(merged, issue.path)) {
        return `${where}: required (give ${at.field.flag}, or "${at.field.key}" in a --config file)`;
      }
      return `${where}: ${issue.message}`;
    })
    .join('\n');
}

/**
 * The settings a command runs with: `cmd` is a command built by addSettingOptions (only the flags the user typed count),
 * the fields' environment variables (an empty one counts as not given) and `fileValues`, this schema's part of the
 * --config file (default: all of it).
 * Returns them and `given`, the values the file, the environment and the flags gave (merged). Errors are UsageErrors
 * naming the source.
 */
export function resolveSettings<S extends z.ZodType>(schema: S, cmd: Command, fileValues?: Json): { settings: z.output<S>; given: Json } {
  const fields = settingFields(schema);
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const opts = cmd.opts();
  const file = typeof opts.config === 'string' ? opts.config : undefined;
  const env: Json = {};
  const flags: Json = {};
  for (const [flag, same] of byFlag(fields)) {
    const attr = new Option(flag).attributeName();
    const variable = same.find((x) => x.env)?.env;
    const raw = variable ? process.env[variable] : undefined;
    for (const f of same) {
      if (raw) setPath(env, f.path, convert(f, raw, variable!));
      if (cmd.getOptionValueSource(attr) === 'cli') setPath(flags, f.path, convert(f, opts[attr], flag));
    }
  }
  const flagOf = (p: PropertyKey[]) => {
    const at = fieldAt(byKey, p);
    if (!at) return p.map(String).join('.');
    return at.rest.length === 1 && typeof at.rest[0] === 'number' ? `${at.field.flag} (item ${at.rest[0] + 1})` : [at.field.flag, ...at.rest.map(String)].join('.');
  };
  const layers: Layer[] = [
    ...(file ? [fileLayer(file, '--config', fileValues ?? readConfigFile(file))] : []),
    { name: (p) => fieldAt(byKey, p)?.field.env ?? p.map(String).join('.'), values: env },
    { name: flagOf, values: flags },
  ];
  const merged = layers.reduce((acc, l) => merge(acc, l.values), {} as Json);
  const r = schema.safeParse(merged);
  if (!r.success) throw new UsageError(explain(schema, r.error, layers, merged));
  return { settings: r.data, given: merged };
}

/**
 * The settings `env` gives through the fields' environment variables (.meta({ env })), the schema's defaults for the
 * rest (an empty variable counts as not given, as for a command). Errors are UsageErrors naming the variable.
 */
export function settingsFromEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv, fields: SettingField[] = settingFields(schema)): z.output<S> {
  const values: Json = {};
  for (const f of fields) {
    const raw = f.env ? env[f.env] : undefined;
    if (raw) setPath(values, f.path, convert(f, raw, f.env!));
  }
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const r = schema.safeParse(values);
  if (!r.success) throw new UsageError(explain(schema, r.error, [{ name: (p) => fieldAt(byKey, p)?.field.env ?? p.map(String).join('.'), values }], values));
  return r.data;
}

/**
 * A settings file of another command's schema (e.g. a service's config handed to a command that starts the service,
 * as `flag FILE`): read and checked alone against `schema`, errors naming `flag FILE: key`; returned as written, for
 * the caller to put its own values over.
 */
export function readSettingsFile<S extends z.ZodType>(schema: S, file: string, flag: string): z.input<S> {
  const values = readConfigFile(file, flag);
  const r = schema.safeParse(values);
  if (!r.success) throw new UsageError(explain(schema, r.error, [fileLayer(file, flag, values)], values));
  return values as z.input<S>;
}

/** `value` as settings of `schema` (settings a program builds); a UsageError names each bad key as `source: key`. */
export function parseSettings<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const values = isObject(value) ? value : {};
  throw new UsageError(explain(schema, r.error, [{ name: (p) => `${source}: ${p.map(String).join('.') || '(root)'}`, values }], values));
}
