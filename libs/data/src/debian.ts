// The pretraining corpus's Debian packages: the pinned manifest (data/corpus/manifest.json) and what prep:corpus does
// with each entry: fetch its .deb with `apt-get download PKG=VERSION` (kept in a folder, checked against the pinned
// sha256), unpack it with `dpkg-deb -x`, and re-pin the manifest (`--repin`) to the versions of its suite that apt
// offers now, when a Debian point release has replaced a pinned version (Debian's mirrors keep only current ones).
// Versions are pinned from the release's own suite (bookworm: its last point release), not from bookworm-security,
// whose versions change with every security update; a corpus only reads the code, so security fixes do not matter.
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { DataError, formatProblem, type DataProblem } from './data-error';
import { issueToProblem } from './zod-issues';

const DEBIAN_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

export const ManifestPackage = z.strictObject({
  package: z.string().regex(DEBIAN_NAME, { error: 'must be a Debian package name (lower-case letters, digits, + - .)' }),
  version: z.string().regex(/^[0-9A-Za-z.+~:-]+$/, { error: 'must be a Debian version, e.g. 3:3.2.25-0+deb12u7' }),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lower-case hex digits (the SHA256 line of `apt-cache show PKG=VERSION`)" }),
  licence: z.string().trim().min(1, { error: 'must name the licence (from /usr/share/doc/PKG/copyright)' }),
  max_mb: z.number().positive().optional(),
  strip_strings: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must be a Python identifier' })).optional(),
});
export type ManifestPackage = z.output<typeof ManifestPackage>;

export const CorpusManifest = z.strictObject({
  about: z.string().optional(),
  /** The Debian suite the versions are pinned from (what --repin re-pins to), e.g. "bookworm". */
  suite: z.string().regex(/^[a-z][a-z0-9-]*$/, { error: 'must be a Debian suite name, e.g. bookworm' }),
  /** The dpkg architecture the sha256 values are of (arch-dependent packages differ per architecture). */
  architecture: z.string().min(1),
  packages: z.array(ManifestPackage).min(1, { error: 'must list at least one package' }),
  reserved: z.array(ManifestPackage),
});
export type CorpusManifest = z.output<typeof CorpusManifest>;

/** The manifest of `file`, validated; every problem is named by its field (`packages[3].sha256: ...`), duplicates too. */
export function readCorpusManifest(file: string): CorpusManifest {
  if (!fs.existsSync(file)) throw DataError.of({ file, message: 'file not found' });
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw DataError.of({ file, message: `not valid JSON (${(e as Error).message})` });
  }
  return parseCorpusManifest(raw, file);
}

/** readCorpusManifest's checks on a value already parsed from JSON; `file` names it in the errors. */
export function parseCorpusManifest(raw: unknown, file: string): CorpusManifest {
  const parsed = CorpusManifest.safeParse(raw);
  const problems: DataProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => issueToProblem(i, raw, file));
  if (parsed.success) {
    const seen = new Map<string, string>();
    for (const list of ['packages', 'reserved'] as const) {
      parsed.data[list].forEach((p, i) => {
        const first = seen.get(p.package);
        if (first !== undefined) problems.push({ file, field: `${list}[${i}].package`, message: `${p.package} is listed twice (first at ${first})` });
        else seen.set(p.package, `${list}[${i}]`);
      });
    }
  }
  if (problems.length > 0) throw new DataError(problems.map(formatProblem).join('\n'), problems);
  return parsed.data!;
}

/** sha256 of a file, hex. */
export function fileSha256(file: string): string {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

const label = (p: Pick<ManifestPackage, 'package' | 'version'>) => `${p.package} ${p.version}`;
const REPIN_HINT = "Debian's mirrors keep only the current version of each package: `apt-cache policy PKG` shows what apt can get now; `npx nx run prep:corpus -- --repin` re-pins the manifest (QA.md)";

/** The .deb of `p` in `dir` as apt-get download names it (PKG_VERSION_ARCH.deb, an epoch's ':' written %3a), or null. */
export function findDeb(dir: string, p: Pick<ManifestPackage, 'package' | 'version'>): string | null {
  if (!fs.existsSync(dir)) return null;
  const prefix = `${p.package}_${p.version.replace(/:/g, '%3a')}_`;
  const name = fs.readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.deb'));
  return name === undefined ? null : path.join(dir, name);
}

/** Downloads `PKG=VERSION` into `dir`; throws a message naming the package and version when apt cannot. */
export type DebDownloader = (p: ManifestPackage, dir: string) => void;

/** `apt-get download PKG=VERSION` in `dir`. */
export const aptDownload: DebDownloader = (p, dir) => {
  const r = spawnSync('apt-get', ['download', `${p.package}=${p.version}`], { cwd: dir, encoding: 'utf8' });
  if (r.error) throw new Error(`${label(p)}: cannot run apt-get (${r.error.message}); prep corpus fetches the corpus with Debian's apt`);
  if (r.status !== 0) {
    const why = r.stderr.split('\n').filter((l) => /^(E|Err):/.test(l)).join('; ') || r.stderr.trim().split('\n').pop() || `exit ${r.status}`;
    const hint = /Failed to fetch|Could not (resolve|connect)|Temporary failure/.test(why)
      ? 'apt cannot reach the mirror: check the network, `apt-get update` and the sources (QA.md)'
      : REPIN_HINT;
    throw new Error(`apt-get cannot download ${p.package}=${p.version}: ${why}. ${hint}`);
  }
};

/**
 * The path of `p`'s .deb in `dir`, downloaded unless a file with the pinned sha256 is there already (a file with another
 * sha256 is replaced). Errors name the package and version: apt cannot get it, or what it got is not what was pinned.
 */
export function ensureDeb(p: ManifestPackage, dir: string, download: DebDownloader = aptDownload): { file: string; downloaded: boolean } {
  fs.mkdirSync(dir, { recursive: true });
  const have = findDeb(dir, p);
  if (have !== null && fileSha256(have) === p.sha256) return { file: have, downloaded: false };
  if (have !== null) fs.rmSync(have);
  download(p, dir);
  const got = findDeb(dir, p);
  if (got === null) throw new Error(`${label(p)}: apt-get download succeeded but no ${p.package}_${p.version.replace(/:/g, '%3a')}_*.deb is in ${dir}`);
  const sha = fileSha256(got);
  if (sha !== p.sha256) {
    throw new Error(`${label(p)}: ${path.basename(got)} has sha256 ${sha}, the manifest pins ${p.sha256} (the same version rebuilt, or another architecture than the manifest's). ${REPIN_HINT}`);
  }
  return { file: got, downloaded: true };
}

/**
 * `p`'s files unpacked under `dir/<package>` (dpkg-deb -x). A stamp file `dir/<package>.sha256` records which .deb the
 * folder holds, so an unchanged package is not unpacked again and a re-pinned one is.
 */
export function extractDeb(p: ManifestPackage, deb: string | null, dir: string): { root: string; extracted: boolean } {
  const root = path.join(dir, p.package);
  const stamp = `${root}.sha256`;
  if (fs.existsSync(root) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8').trim() === p.sha256) return { root, extracted: false };
  if (deb === null) throw new Error(`${label(p)}: no .deb to unpack`);
  fs.rmSync(stamp, { force: true });
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const r = spawnSync('dpkg-deb', ['-x', deb, root], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`${label(p)}: dpkg-deb -x ${deb} failed: ${r.error?.message ?? r.stderr.trim()}`);
  fs.writeFileSync(stamp, p.sha256 + '\n');
  return { root, extracted: true };
}

/** A package's version in `suite` and that .deb's sha256, as apt knows them now (`apt-cache madison`, `apt-cache show`), or null. */
export function aptSuitePin(pkg: string, suite: string): { version: string; sha256: string } | null {
  const madison = spawnSync('apt-cache', ['madison', pkg], { encoding: 'utf8' });
  if (madison.error) throw new Error(`cannot run apt-cache (${madison.error.message})`);
  // " python3-django | 3:3.2.25-0+deb12u3 | http://deb.debian.org/debian bookworm/main amd64 Packages"
  const version = madison.stdout
    .split('\n')
    .map((l) => l.split('|').map((x) => x.trim()))
    .find((f) => f.length === 3 && f[0] === pkg && f[2].split(' ').some((w) => w.startsWith(`${suite}/`)))?.[1];
  if (version === undefined) return null;
  const show = spawnSync('apt-cache', ['show', `${pkg}=${version}`], { encoding: 'utf8' });
  const sha256 = show.stdout.match(/^SHA256: ([0-9a-f]{64})$/m)?.[1];
  return sha256 === undefined ? null : { version, sha256 };
}

/** The manifest with every entry moved to the version its suite has now, and the entries that changed (licences are kept: check them). */
export function repinManifest(
  m: CorpusManifest,
  pin: (pkg: string, suite: string) => { version: string; sha256: string } | null = aptSuitePin,
): { manifest: CorpusManifest; changed: { package: string; from: string; to: string }[] } {
  const changed: { package: string; from: string; to: string }[] = [];
  const repin = (p: ManifestPackage): ManifestPackage => {
    const now = pin(p.package, m.suite);
    if (now === null) throw new Error(`${p.package}: apt knows no version of it in ${m.suite} (run apt-get update with ${m.suite} in the sources, or replace it in the manifest)`);
    if (now.version !== p.version || now.sha256 !== p.sha256) changed.push({ package: p.package, from: p.version, to: now.version });
    return { ...p, version: now.version, sha256: now.sha256 };
  };
  return { manifest: { ...m, packages: m.packages.map(repin), reserved: m.reserved.map(repin) }, changed };
}

/** Writes a manifest with one package per line (readable diffs when versions are re-pinned). */
export function writeCorpusManifest(file: string, m: CorpusManifest): void {
  const list = (ps: readonly ManifestPackage[]) => (ps.length === 0 ? '[]' : `[\n${ps.map((p) => `    ${JSON.stringify(p)}`).join(',\n')}\n  ]`);
  const head = (['about', 'suite', 'architecture'] as const).filter((k) => m[k] !== undefined).map((k) => `  "${k}": ${JSON.stringify(m[k])},`);
  fs.writeFileSync(file, `{\n${head.join('\n')}\n  "packages": ${list(m.packages)},\n  "reserved": ${list(m.reserved)}\n}\n`);
}
