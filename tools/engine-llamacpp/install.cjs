#!/usr/bin/env node
// Installs the llamacpp rollout engine's runtime (node-llama-cpp, pinned in this folder's package.json and
// package-lock.json) into tools/engine-llamacpp/node_modules, with the prebuilt llama.cpp binary of this platform only.
// Runs as part of the root package's postinstall (npm ci) and as `npm run install:llamacpp`.
//
// Why a folder of its own: node-llama-cpp lists 14 platform builds as optional dependencies, so a plain install pulls
// about 725 MB (CUDA and Vulkan builds included) where linux-x64's CPU build is 85 MB in all. Here npm installs the
// locked tree with --omit=optional (no platform build at all) plus the one platform package named explicitly, with
// --ignore-scripts and NODE_LLAMA_CPP_SKIP_DOWNLOAD=true (nothing is compiled or downloaded at install or run time;
// the engine calls getLlama({build: 'never'})).
//
// Settings (environment):
//   RLHF_LLAMACPP=0                  skip the install (the llamacpp engine then says how to install it)
//   RLHF_LLAMACPP_GPU=cuda|vulkan    also install that GPU build (Linux and Windows x64); the engine, reading the same
//                                    variable (the runtime setting llamacppGpu), then uses it. On Apple silicon the
//                                    one build is Metal's, with or without this variable.
//   RLHF_LLAMACPP_REQUIRED=1         a failed install fails the root install instead of printing a warning
//
// A platform without a prebuilt binary, or an install that fails (no registry), prints one line and exits 0: the
// project runs without the llamacpp engine.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const dir = __dirname;
const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
const version = lock.packages['node_modules/node-llama-cpp'].version;

function warn(message) {
  process.stderr.write(`[rlhf-code] llamacpp engine not installed: ${message}\n`);
  process.exit(process.env.RLHF_LLAMACPP_REQUIRED === '1' ? 1 : 0);
}

/** The @node-llama-cpp packages for this platform and GPU setting (the CPU build first), or null where none exists. */
function platformPackages(platform, arch, gpu) {
  const os = { linux: 'linux', win32: 'win', darwin: 'mac' }[platform];
  if (os === 'mac') {
    if (arch === 'arm64') return ['mac-arm64-metal'];
    if (arch === 'x64') return ['mac-x64'];
    return null;
  }
  if (os === undefined) return null;
  if (arch === 'x64') {
    // cpu and auto (the runtime setting's other values) need the CPU build alone: auto then finds no GPU build.
    const extra = { '': [], cpu: [], auto: [], cuda: [`${os}-x64-cuda`, `${os}-x64-cuda-ext`], vulkan: [`${os}-x64-vulkan`] }[gpu];
    if (extra === undefined) warn(`RLHF_LLAMACPP_GPU=${gpu}: expected cuda or vulkan for a GPU build, or cpu, auto or unset for the CPU build`);
    return [`${os}-x64`, ...extra];
  }
  const other = { 'linux/arm64': 'linux-arm64', 'linux/arm': 'linux-armv7l', 'linux/riscv64': 'linux-riscv64', 'win/arm64': 'win-arm64' }[`${os}/${arch}`];
  return other ? [other] : null;
}

/** Whether node_modules already holds this version and these packages (a repeated npm ci leaves this folder alone). */
function installed(packages) {
  const versionOf = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  return versionOf('node-llama-cpp') === version && packages.every((p) => versionOf(`@node-llama-cpp/${p}`) === version);
}

function main() {
  if (process.env.RLHF_LLAMACPP === '0') warn('RLHF_LLAMACPP=0');
  const gpu = process.env.RLHF_LLAMACPP_GPU ?? '';
  const packages = platformPackages(process.platform, process.arch, gpu);
  if (!packages) warn(`node-llama-cpp ${version} has no prebuilt binary for ${process.platform}/${process.arch}`);
  if (installed(packages)) return;
  const started = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // `npm install` (not `npm ci`) so that the lockfile may lack platform packages the registry did not list when it
  // was written; --no-save keeps package.json and the lockfile as they are, and the locked versions are installed.
  const args = ['install', '--prefix', dir, '--no-save', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund',
    ...packages.map((p) => `@node-llama-cpp/${p}@${version}`)];
  const r = spawnSync(npm, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' }, shell: process.platform === 'win32' });
  if (r.status !== 0) warn(`npm ${args.join(' ')} failed:\n  ${String(r.stderr ?? r.error).trim().split('\n').slice(-5).join('\n  ')}`);
  process.stderr.write(`[rlhf-code] llamacpp engine installed in ${((Date.now() - started) / 1000).toFixed(1)} s: node-llama-cpp ${version} with ${packages.map((p) => `@node-llama-cpp/${p}`).join(', ')}\n`);
}

if (require.main === module) main();
