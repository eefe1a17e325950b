// The entry of every worker thread of the online service (thread-calls.ts starts them all here): tsx's require hook,
// then the file named by workerData.entry; the thread's own data is workerData.data. A worker thread does not get its
// parent's TypeScript loader under every runner (jest's, for one), so it registers its own.
'use strict';
require('tsx/cjs/api').register();
require(require('worker_threads').workerData.entry);
