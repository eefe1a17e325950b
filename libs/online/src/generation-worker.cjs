// The generation thread's entry: tsx's require hook, then generation-worker.ts (see training-worker.cjs).
'use strict';
require('tsx/cjs/api').register();
require('./generation-worker.ts');
