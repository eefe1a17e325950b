#!/usr/bin/env node
// Module boundaries of the monorepo, checked from the sources (the equivalent of @nx/enforce-module-boundaries with
// depConstraints on tags, without an eslint install). Run by `npm test`. Rules:
//   1. every project has a `scope:` tag (app or lib) and a `type:` tag; every lib a `layer:N` tag;
//   2. a lib imports only libs of a lower layer (so no lib imports one above it, and there are no cycles), its tests
//      included (a test's import is an edge of the project graph too); no lib imports an app; an app imports libs
//      only; only tests may use another lib's `testing` entry;
//   3. other projects import a lib through its public entry (@rlhf-code/<lib> or @rlhf-code/<lib>/testing), never
//      through a relative path into it;
//   4. a lib's index.ts exports only what another project imports (its public API): an unused export is an error.
// Prints one line per problem and exits 1 when there is any; with RLHF_TEST_COUNTS set, appends its result there.
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const ROOT = path.join(__dirname, '..');
const ALIAS = '@rlhf-code/';
const problems = [];

function projects() {
  const out = [];
  for (const kind of ['apps', 'libs']) {
    for (const dir of fs.readdirSync(path.join(ROOT, kind))) {
      const file = path.join(ROOT, kind, dir, 'project.json');
      if (!fs.existsSync(file)) continue;
      const p = JSON.parse(fs.readFileSync(file, 'utf8'));
      out.push({ dir: `${kind}/${dir}`, alias: kind === 'libs' ? dir : null, name: p.name, tags: p.tags ?? [], app: kind === 'apps' });
    }
  }
  return out;
}

function sourceFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.ts')) out.push(full);
    }
  };
  walk(path.join(ROOT, dir, 'src'));
  return out;
}

/** Every import / export-from of a file: { spec, names } (names imported by name; '*' for a namespace). */
function importsOf(file) {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const names = [];
      const clause = ts.isImportDeclaration(node) ? node.importClause : null;
      if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings)) clause.namedBindings.elements.forEach((e) => names.push((e.propertyName ?? e.name).text));
      else if (clause?.namedBindings) names.push('*');
      out.push({ spec: node.moduleSpecifier.text, names });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      out.push({ spec: node.arguments[0].text, names: ['*'] });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Names a lib's index.ts exports (export { a, b as c }, export const / function / class). */
function exportsOf(file) {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (!st.exportClause) problems.push(`${path.relative(ROOT, file)}: "export *" hides what the public API is; name the exports`);
      else if (ts.isNamedExports(st.exportClause)) st.exportClause.elements.forEach((e) => names.push(e.name.text));
    } else if (st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(st)) st.declarationList.declarations.forEach((d) => ts.isIdentifier(d.name) && names.push(d.name.text));
      else if (st.name) names.push(st.name.text);
    }
  }
  return names;
}

const all = projects();
const libs = new Map(all.filter((p) => !p.app).map((p) => [p.alias, p]));
const layer = (p) => Number((p.tags.find((t) => t.startsWith('layer:')) ?? 'layer:NaN').slice(6));

for (const p of all) {
  if (!p.tags.some((t) => t.startsWith('scope:'))) problems.push(`${p.dir}/project.json: no scope: tag`);
  if (!p.tags.some((t) => t.startsWith('type:'))) problems.push(`${p.dir}/project.json: no type: tag`);
  if (!p.app && Number.isNaN(layer(p))) problems.push(`${p.dir}/project.json: no layer:N tag`);
}

const used = new Map([...libs.keys()].map((k) => [k, new Set()])); // lib -> names other projects import
for (const p of all) {
  for (const file of sourceFiles(p.dir)) {
    const rel = path.relative(ROOT, file);
    const isTest = /\.test\.ts$/.test(file) || /\/testing(\/|\.ts$)/.test(rel);
    for (const { spec, names } of importsOf(file)) {
      if (spec.startsWith('.')) {
        const target = path.relative(ROOT, path.resolve(path.dirname(file), spec));
        if (!target.startsWith(p.dir + '/')) problems.push(`${rel}: imports ${spec}, a path outside ${p.dir}; use the project's @rlhf-code entry`);
        continue;
      }
      if (!spec.startsWith(ALIAS)) continue;
      const [alias, sub] = spec.slice(ALIAS.length).split('/');
      const lib = libs.get(alias);
      if (!lib) {
        problems.push(`${rel}: imports ${spec}, which is no lib`);
        continue;
      }
      if (sub !== undefined && sub !== 'testing') problems.push(`${rel}: imports ${spec}; import @rlhf-code/${alias} (its public entry)`);
      if (sub === 'testing' && !isTest) problems.push(`${rel}: imports ${spec} outside a test`);
      if (lib === p) continue;
      if (sub === undefined) names.forEach((n) => used.get(alias).add(n));
      if (!p.app && !(layer(lib) < layer(p))) {
        problems.push(`${rel}: ${p.name} (layer ${layer(p)}) imports @rlhf-code/${alias} (layer ${layer(lib)}); a lib imports only lower layers`);
      }
    }
  }
}

if (process.argv.includes('--used')) {
  // What other projects import from each lib (for trimming an index).
  process.stdout.write(JSON.stringify(Object.fromEntries([...used].map(([k, v]) => [k, [...v].sort()])), null, 1) + '\n');
  process.exit(0);
}

for (const [alias, lib] of libs) {
  const index = path.join(ROOT, lib.dir, 'src/index.ts');
  if (!fs.existsSync(index)) {
    problems.push(`${lib.dir}: no src/index.ts`);
    continue;
  }
  const names = used.get(alias);
  if (names.has('*')) continue;
  const unused = exportsOf(index).filter((n) => !names.has(n));
  if (unused.length > 0) problems.push(`${lib.dir}/src/index.ts: exports what no other project imports: ${unused.join(', ')}`);
}

for (const line of problems) process.stderr.write(`boundaries: ${line}\n`);
process.stdout.write(`boundaries: ${all.length} projects, ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
if (process.env.RLHF_TEST_COUNTS) {
  fs.appendFileSync(process.env.RLHF_TEST_COUNTS, JSON.stringify({ passed: problems.length ? 0 : 1, failed: problems.length ? 1 : 0, brokenSuites: 0 }) + '\n');
}
process.exit(problems.length ? 1 : 0);
