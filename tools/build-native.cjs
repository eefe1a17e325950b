#!/usr/bin/env node
// Builds the native kernels (libs/backend/native/*.cc) into libs/backend/native/build/rlhf_native.node with
// the system C++ compiler and the Node-API headers of the npm package node-api-headers. Runs as the root
// package's postinstall (npm ci) and as `npm run build:native`. Nothing is downloaded.
//
// A build that cannot happen (not Linux/x86-64, no compiler, RLHF_NATIVE=0) or that fails prints one warning
// and exits 0: the project then runs on the wasm kernels alone. CI sets RLHF_NATIVE_REQUIRED=1 to make a
// failed build fail the install instead.
'use strict';
const { execFileSync, spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const srcDir = path.join(root, 'libs/backend/native');
const outDir = path.join(srcDir, 'build');
const outFile = path.join(outDir, 'rlhf_native.node');
const stampFile = path.join(outDir, 'rlhf_native.json');
// The *_avx2.cc files alone get -mavx2 -mfma and kernels_avx512.cc alone the AVX-512 flags (F, BW, VL, DQ, BF16: GCC 9
// or clang 9 and later); the glue (addon.cc, gemm_choice.cc) checks the CPU before calling into either, so the addon
// loads on any x86-64 (no -march=native: the build machine's CPU is not the user's).
const AVX2 = ['-mavx2', '-mfma'];
const sources = {
  'addon.cc': [], 'pool.cc': [], 'openblas.cc': [], 'gemm_choice.cc': [],
  'gemm_avx2.cc': AVX2, 'attention_avx2.cc': AVX2, 'layers_avx2.cc': AVX2, 'logprobs_avx2.cc': AVX2, 'optimizer_avx2.cc': AVX2,
  'kernels_avx512.cc': ['-mavx512f', '-mavx512bw', '-mavx512vl', '-mavx512dq', '-mavx512bf16', '-mfma'],
};

function warn(message) {
  process.stderr.write(`[rlhf-code] native kernels not built: ${message}; the wasm kernels will be used\n`);
  if (process.env.RLHF_NATIVE_REQUIRED === '1') process.exit(1);
  process.exit(0);
}

/** Hash of the sources and flags: the loader compares it to warn about a build older than the sources. */
function sourceHash() {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(srcDir).filter((f) => /\.(cc|h)$/.test(f)).sort()) {
    hash.update(file).update(fs.readFileSync(path.join(srcDir, file)));
  }
  hash.update(JSON.stringify(sources));
  return hash.digest('hex').slice(0, 16);
}

function main() {
  if (process.env.RLHF_NATIVE === '0') warn('RLHF_NATIVE=0');
  if (process.platform !== 'linux' || process.arch !== 'x64') warn(`no native kernels for ${process.platform}/${process.arch}`);
  const cxx = process.env.CXX || 'c++';
  if (spawnSync(cxx, ['--version'], { stdio: 'ignore' }).status !== 0) warn(`no C++ compiler ('${cxx}' did not run; set CXX)`);
  let include;
  try {
    include = path.join(path.dirname(require.resolve('node-api-headers/package.json', { paths: [root] })), 'include');
  } catch {
    warn('the npm package node-api-headers is not installed');
  }
  const started = Date.now();
  fs.mkdirSync(outDir, { recursive: true });
  const objects = [];
  try {
    for (const [file, flags] of Object.entries(sources)) {
      const object = path.join(outDir, file.replace(/\.cc$/, '.o'));
      execFileSync(cxx, ['-O3', '-std=c++17', '-fPIC', '-fvisibility=hidden', '-DNODE_GYP_MODULE_NAME=rlhf_native',
        '-DNAPI_VERSION=8', `-I${include}`, ...flags, '-c', path.join(srcDir, file), '-o', object], { stdio: ['ignore', 'ignore', 'pipe'] });
      objects.push(object);
    }
    const partial = `${outFile}.${process.pid}.tmp`;
    execFileSync(cxx, ['-shared', '-o', partial, ...objects, '-ldl', '-lpthread'], { stdio: ['ignore', 'ignore', 'pipe'] });
    fs.renameSync(partial, outFile); // atomic: a running process never loads half a file
  } catch (err) {
    for (const object of objects) fs.rmSync(object, { force: true });
    const stderr = String(err.stderr ?? err.message).trim().split('\n').slice(-5).join('\n  ');
    warn(`the compiler failed:\n  ${stderr}\n`);
  }
  for (const object of objects) fs.rmSync(object, { force: true });
  fs.writeFileSync(stampFile, JSON.stringify({ sources: sourceHash() }) + '\n');
  process.stderr.write(`[rlhf-code] native kernels built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${path.relative(root, outFile)}\n`);
}

if (require.main === module) main();
module.exports = { sourceHash, outFile, stampFile };
