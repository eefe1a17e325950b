// Settings declared once: a stage's zod schema (fields with .default() and .describe(), optionally
// .meta({ env: 'VAR' })) gives its command-line flags, its --help, its --config file format and its --print-config.
//
// Precedence, lowest first: the schema's defaults < the --config file (JSON or YAML) < environment variables < flags.
// The schema is a strict object, or a discriminated union of strict objects (e.g. algo: ppo | grpo), possibly behind
// a z.preprocess that fills in the discriminator's default. Flags are the field names in kebab case (maxNewTokens ->
// --max-new-tokens); a boolean that defaults to true is turned off with --no-<name>. Every error names where the bad
// value came from: the flag, the environment variable, or the file and its key.
import * as fs from 'fs';
import { Command, Option } from 'commander';
import YAML from 'yaml';
import { z } from 'zod';
import { flagName, UsageError } from './flags';

type Kind = 'int' | 'number' | 'string' | 'boolean' | 'enum' | 'list' | 'numbers';

/** One setting as the command line sees it. */
export interface SettingField {
  key: string;
  flag: string;
  kind: Kind;
  choices?: string[];
  description: string;
  /** Environment variable that sets it (the field's .meta({ env })). */
  env?: string;
  /** Default per variant of a union ('' for a plain object); absent when the field has none. */
  defaults: Map<string, unknown>;
  /** Discriminator values of the variants that have the field; empty for a plain object. */
  variants: string[];
  /** A list given by repeating the flag (.meta({ repeat: true })) instead of separating values with commas. */
  repeat: boolean;
}

interface Unwrapped {
  inner: z.ZodType;
  meta: Record<string, unknown>;
  hasDefault: boolean;
  defaultValue: unknown;
}

type Def = { type: string; innerType?: z.ZodType; defaultValue?: unknown; out?: z.ZodType; options?: z.ZodType[]; element?: z.ZodType; values?: unknown[]; discriminator?: string };
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

function kindOf(key: string, t: z.ZodType): { kind: Kind; choices?: string[] } {
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
    }
  }
  throw new Error(`settings: field "${key}" has type ${d.type}, which has no command-line form`);
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

/** Every field of a settings schema, in declaration order (a union's fields once each). */
export function settingFields(schema: z.ZodType): SettingField[] {
  const { objects, discriminator } = variantsOf(schema);
  const fields = new Map<string, SettingField>();
  for (const obj of objects) {
    const variant = discriminator ? String(defOf(unwrap(obj.shape[discriminator]).inner).values?.[0]) : '';
    for (const [key, t] of Object.entries(obj.shape)) {
      if (key === 'config' || key === 'printConfig') throw new Error(`settings: "${key}" is reserved for --config / --print-config`);
      const u = unwrap(t);
      const { kind, choices } = kindOf(key, u.inner);
      let f = fields.get(key);
      if (!f) {
        f = {
          key,
          flag: flagName(key),
          kind,
          choices,
          description: String(u.meta.description ?? ''),
          env: u.meta.env as string | undefined,
          defaults: new Map(),
          variants: [],
          repeat: u.meta.repeat === true,
        };
        fields.set(key, f);
      } else if (key === discriminator) {
        f.choices = [...(f.choices ?? []), ...(choices ?? [])];
      }
      if (u.hasDefault) f.defaults.set(variant, u.defaultValue);
      if (discriminator && key !== discriminator) f.variants.push(variant);
      if (!f.description && u.meta.description) f.description = String(u.meta.description);
    }
  }
  // The discriminator's default: what the whole schema makes of an input without it.
  if (discriminator) {
    const r = schema.safeParse({});
    const f = fields.get(discriminator)!;
    if (r.success) f.defaults.set('', (r.data as Record<string, unknown>)[discriminator]);
    f.variants = [];
  }
  return [...fields.values()];
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

/** Add one option per setting, plus --config and --print-config. Commander gets no defaults: they live in the schema. */
export function addSettingOptions(cmd: Command, schema: z.ZodType): Command {
  const fields = settingFields(schema);
  const variantCount = variantsOf(schema).objects.length;
  for (const f of fields) {
    const negated = f.kind === 'boolean' && [...f.defaults.values()].some((v) => v === true);
    const flags = f.kind === 'boolean' ? (negated ? `--no-${f.flag.slice(2)}` : f.flag) : `${f.flag} ${ARG[f.kind]}`;
    const opt = new Option(f.repeat ? `${f.flag} <value>` : flags, helpText(f, variantCount) + (f.repeat ? ' (repeat the flag for several)' : ''));
    if (f.repeat) opt.argParser((v: string, acc: unknown) => [...(Array.isArray(acc) ? acc : []), v]);
    if (f.choices) opt.choices(f.choices);
    if (f.env) opt.env(f.env);
    cmd.addOption(opt);
  }
  cmd.option('--config <file>', 'read settings from this JSON or YAML file (keys as printed by --print-config); flags and environment variables override it');
  cmd.option('--print-config', 'print the settings this command would run with (defaults < --config < environment < flags) as JSON, and exit');
  return cmd;
}

type Layer = { name: (path: PropertyKey[]) => string; values: Record<string, unknown> };

/** A flag's or variable's text as the field's type; errors name `where`. */
function convert(f: SettingField, raw: unknown, where: string): unknown {
  if (typeof raw !== 'string') return raw; // booleans from commander
  switch (f.kind) {
    case 'int':
    case 'number': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (Number.isNaN(n)) throw new UsageError(`${where}: expected a number, got "${raw}"`);
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

/** Read a --config file: a JSON or YAML mapping. */
export function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--config ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let value: unknown;
  try {
    value = YAML.parse(text); // YAML 1.2 reads JSON as well
  } catch (e) {
    throw new UsageError(`--config ${file}: not valid JSON or YAML (${(e as Error).message.split('\n')[0]})`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--config ${file}: expected a mapping of settings, got ${Array.isArray(value) ? 'a list' : typeof value}`);
  return value as Record<string, unknown>;
}

const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The settings a command runs with: `opts` is commander's parsed options of a command built by addSettingOptions
 * (only values the user typed, or set through the environment, count). Errors are UsageErrors naming the source.
 */
export function resolveSettings<S extends z.ZodType>(schema: S, cmd: Command): z.output<S> {
  const fields = settingFields(schema);
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const opts = cmd.opts();
  const file = typeof opts.config === 'string' ? opts.config : undefined;
  const layers: Layer[] = [];
  if (file) layers.push({ name: (p) => `--config ${file}: ${p.map(String).join('.')}`, values: readConfigFile(file) });
  const env: Record<string, unknown> = {};
  const flags: Record<string, unknown> = {};
  for (const f of fields) {
    const source = cmd.getOptionValueSource(f.key);
    if (source === 'env') env[f.key] = convert(f, opts[f.key], f.env!);
    else if (source === 'cli') flags[f.key] = convert(f, opts[f.key], f.flag);
  }
  layers.push({ name: (p) => byKey.get(String(p[0]))?.env ?? String(p[0]), values: env });
  const flagOf = (p: PropertyKey[]) => {
    const flag = byKey.get(String(p[0]))?.flag ?? String(p[0]);
    return p.length === 2 && typeof p[1] === 'number' ? `${flag} (item ${p[1] + 1})` : p.length === 1 ? flag : p.map(String).join('.');
  };
  layers.push({ name: flagOf, values: flags });
  const merged: Record<string, unknown> = Object.assign({}, ...layers.map((l) => l.values));
  const r = schema.safeParse(merged);
  if (!r.success) {
    const discriminator = variantsOf(schema).discriminator;
    const lines = r.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      const layer = [...layers].reverse().find((l) => key in l.values);
      if (issue.code === 'unrecognized_keys') {
        return issue.keys
          .map((k) => {
            const src = [...layers].reverse().find((l) => k in l.values);
            const where = src ? src.name([k]) : k;
            const f = byKey.get(k);
            if (f && discriminator) return `${where}: only with ${discriminator} ${f.variants.join(' or ')}, not ${discriminator} ${String(merged[discriminator] ?? byKey.get(discriminator)!.defaults.get(''))}`;
            const hint = byKey.has(camel(k)) ? ` (did you mean "${camel(k)}"?)` : '';
            return `${where}: unknown setting${hint}`;
          })
          .join('\n');
      }
      const where = layer ? layer.name(issue.path) : issue.path.length > 0 ? (byKey.get(key)?.flag ?? key) : '(settings)';
      if (issue.code === 'invalid_type' && issue.path.length === 1 && merged[key] === undefined) {
        return `${where}: required (give ${byKey.get(key)?.flag ?? key}, or "${key}" in a --config file)`;
      }
      return `${where}: ${issue.message}`;
    });
    throw new UsageError(lines.join('\n'));
  }
  return r.data;
}

/**
 * A command run by its settings: options from the schema, then `run(settings)`; --print-config prints them instead.
 * `schema` is the stage's settings schema, declared in the lib that runs the stage.
 */
export function settingsCommand<S extends z.ZodType>(cmd: Command, schema: S, run: (settings: z.output<S>) => Promise<void> | void): Command {
  addSettingOptions(cmd, schema);
  return cmd.action(async (_opts: unknown, self: Command) => {
    const settings = resolveSettings(schema, self);
    if (self.opts().printConfig) {
      process.stdout.write(JSON.stringify(settings, null, 2) + '\n');
      return;
    }
    await run(settings);
  });
}
