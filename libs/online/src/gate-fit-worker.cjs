// The gate-fit thread's entry: tsx's require hook, then gate-fit-worker.ts (a worker thread does not get its parent's
// TypeScript loader under every runner: jest's, for one).
'use strict';
require('tsx/cjs/api').register();
require('./gate-fit-worker.ts');
