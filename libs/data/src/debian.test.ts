import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureDeb, extractDeb, findDeb, parseCorpusManifest, readCorpusManifest, repinManifest, writeCorpusManifest, type CorpusManifest, type ManifestPackage } from './debian';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'debian-'));
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const pkg = (over: Partial<ManifestPackage> = {}): ManifestPackage => ({ package: 'python3-demo', version: '2:1.0-1+deb12u1', sha256: sha('deb bytes'), licence: 'MIT', ...over });
const manifest = (over: Partial<CorpusManifest> = {}): CorpusManifest => ({ suite: 'bookworm', architecture: 'amd64', packages: [pkg()], reserved: [pkg({ package: 'python3-requests' })], ...over });

describe('the manifest', () => {
  it('errors name the field and what is wrong', () => {
    const bad = { suite: 'bookworm', architecture: 'amd64', packages: [pkg(), { ...pkg({ package: 'python3-x' }), sha256: 'abc' }, { package: 'python3-y', version: '1' }], reserved: [] };
    let message = '';
    try {
      parseCorpusManifest(bad, 'manifest.json');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'manifest.json: field "packages[1].sha256": must be 64 lower-case hex digits (the SHA256 line of `apt-cache show PKG=VERSION`)',
      'manifest.json: field "packages[2].sha256": missing (expected string)',
      'manifest.json: field "packages[2].licence": missing (expected string)',
    ]);
    expect(() => parseCorpusManifest({ ...manifest(), packages: [pkg({ max_mb: -1 })] }, 'm.json')).toThrow('m.json: field "packages[0].max_mb"');
    expect(() => parseCorpusManifest({ ...manifest(), extra: 1 }, 'm.json')).toThrow('m.json: Unrecognized key: "extra"');
    expect(() => parseCorpusManifest(manifest({ reserved: [pkg()] }), 'm.json')).toThrow('m.json: field "reserved[0].package": python3-demo is listed twice (first at packages[0])');
  });

  it('reads, writes one package per line, and re-pins to what apt offers', () => {
    const dir = tmp();
    const file = path.join(dir, 'manifest.json');
    writeCorpusManifest(file, manifest({ about: 'demo', packages: [pkg({ max_mb: 30, strip_strings: ['DOCUMENTATION'] })] }));
    const text = fs.readFileSync(file, 'utf8').split('\n');
    expect(text.slice(0, 5)).toEqual(['{', '  "about": "demo",', '  "suite": "bookworm",', '  "architecture": "amd64",', '  "packages": [']);
    expect(text[5]).toMatch(/^ {4}\{"package":"python3-demo",.*"strip_strings":\["DOCUMENTATION"\]\}$/);
    const m = readCorpusManifest(file);
    expect(m.packages[0].max_mb).toBe(30);
    const { manifest: next, changed } = repinManifest(m, (name, suite) => (name === 'python3-demo' && suite === 'bookworm' ? { version: '2:1.0-1+deb12u2', sha256: sha('new') } : { version: m.reserved[0].version, sha256: m.reserved[0].sha256 }));
    expect(changed).toEqual([{ package: 'python3-demo', from: '2:1.0-1+deb12u1', to: '2:1.0-1+deb12u2' }]);
    expect(next.packages[0]).toEqual({ ...m.packages[0], version: '2:1.0-1+deb12u2', sha256: sha('new') });
    expect(() => repinManifest(m, () => null)).toThrow('python3-demo: apt knows no version of it in bookworm');
    expect(() => readCorpusManifest(path.join(dir, 'none.json'))).toThrow('none.json: file not found');
  });
});

describe('fetching a package', () => {
  const fakeApt = (content: string, calls: string[]) => (p: ManifestPackage, dir: string) => {
    calls.push(`${p.package}=${p.version}`);
    fs.writeFileSync(path.join(dir, `${p.package}_${p.version.replace(/:/g, '%3a')}_all.deb`), content);
  };

  it('downloads once, keeps a file with the pinned sha256, and replaces one without it', () => {
    const dir = tmp();
    const calls: string[] = [];
    expect(ensureDeb(pkg(), dir, fakeApt('deb bytes', calls))).toEqual({ file: path.join(dir, 'python3-demo_2%3a1.0-1+deb12u1_all.deb'), downloaded: true });
    expect(ensureDeb(pkg(), dir, fakeApt('deb bytes', calls)).downloaded).toBe(false);
    fs.writeFileSync(findDeb(dir, pkg())!, 'truncated');
    expect(ensureDeb(pkg(), dir, fakeApt('deb bytes', calls)).downloaded).toBe(true);
    expect(calls).toEqual(['python3-demo=2:1.0-1+deb12u1', 'python3-demo=2:1.0-1+deb12u1']);
  });

  it('names the package and version when apt cannot get it or the sha256 differs', () => {
    const dir = tmp();
    const failing = (p: ManifestPackage) => {
      throw new Error(`apt-get cannot download ${p.package}=${p.version}: E: Can't find a package`);
    };
    expect(() => ensureDeb(pkg(), dir, failing)).toThrow('apt-get cannot download python3-demo=2:1.0-1+deb12u1');
    expect(() => ensureDeb(pkg(), dir, fakeApt('rebuilt', []))).toThrow(
      `python3-demo 2:1.0-1+deb12u1: python3-demo_2%3a1.0-1+deb12u1_all.deb has sha256 ${sha('rebuilt')}, the manifest pins ${sha('deb bytes')}`,
    );
    expect(() => ensureDeb(pkg(), dir, () => undefined)).toThrow('apt-get download succeeded but no python3-demo_2%3a1.0-1+deb12u1_*.deb');
  });

  it('unpacks only when the stamp names another .deb', () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'python3-demo/usr'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'python3-demo.sha256'), pkg().sha256 + '\n');
    expect(extractDeb(pkg(), null, dir)).toEqual({ root: path.join(dir, 'python3-demo'), extracted: false });
    expect(() => extractDeb(pkg({ sha256: sha('other') }), null, dir)).toThrow('python3-demo 2:1.0-1+deb12u1: no .deb to unpack');
  });
});
