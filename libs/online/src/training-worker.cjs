// The training thread's entry: tsx's require hook, then training-worker.ts. A worker thread does not get its parent's
// TypeScript loader under every runner (jest's, for one), so it registers its own.
'use strict';
require('tsx/cjs/api').register();
require('./training-worker.ts');
