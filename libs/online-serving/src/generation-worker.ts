// The generation thread (started by generation-thread.ts): loads the served models (libs/online-core online-models.ts, role `serve`:
// the frozen start model and the served copy of the policy), decodes on them (LocalGenerator) or through the engine
// --engine names (EngineGenerator, engine-generation.ts), and answers the HTTP thread's calls, each as it comes
// (generations take turns by decoding step, as they did on the HTTP thread; an abort reaches the one it stops):
//   {id, op: 'info'}                    -> {modelWindow, version}
//   {id, op: 'generate', call, request} -> events {row, delta, version, simMs} while decoding, then GenerationResult,
//                                          or {aborted: true} when an abort of `call` stopped it
//   {id, op: 'abort', call}             -> undefined (the generation stops before its next decoding step)
//   {id, op: 'publish', weights}        -> the version decoding now (the new weights go in between decoding steps)
//   {id, op: 'served'}                  -> ServedModelSnapshot
//   {id, op: 'close'}                   -> undefined (models disposed)
// It posts {op: 'ready'} once loaded, or {op: 'failed', error} when it cannot load.
import { parentPort } from 'worker_threads';
import { initBackend } from '@rlhf-code/backend';
import { loadOnlineModels, serveCalls, threadData } from '@rlhf-code/online-core';
import { EngineGenerator } from './engine-generation';
import { Aborted, LocalGenerator, type Generator } from './generation';
import type { GenerateReply, GenerationCall, GenerationWorkerData } from './generation-thread';
import { PolicyHolder } from './policy';

async function main(port: NonNullable<typeof parentPort>, d: GenerationWorkerData): Promise<void> {
  await initBackend({ backend: d.backend, quiet: true });
  const models = await loadOnlineModels(d.config, d.policyDir, 'serve');
  const generator: Generator =
    d.config.engine === 'local'
      ? new LocalGenerator({
          policy: new PolicyHolder(models.policy, d.version),
          start: models.start,
          tokenizer: models.tokenizer,
          owned: models.owned,
          prefixCacheBytes: d.config.completion.prefixCacheMiB * 2 ** 20,
        })
      : await EngineGenerator.open(d.config, {
          policy: models.policy,
          start: models.start,
          tokenizer: models.tokenizer,
          owned: models.owned,
          startDir: d.config.model,
          policyDir: d.policyDir,
          version: d.version,
          cacheReuse: d.config.completion.cacheReuseTokens,
          onPublishError: (v, e) => console.error(`online serve: --engine ${d.config.engine}: policy version ${v} not published (still serving the previous one): ${e.message}`),
        });
  const running = new Map<number, AbortController>();

  const handle = async (m: GenerationCall, emit: (event: unknown) => void): Promise<unknown> => {
    switch (m.op) {
      case 'info':
        return { modelWindow: generator.modelWindow, version: generator.version };
      case 'generate': {
        const stop = new AbortController();
        running.set(m.call, stop);
        try {
          return (await generator.generate(m.request, emit, stop.signal)) satisfies GenerateReply;
        } catch (e) {
          if (e instanceof Aborted) return { aborted: true } satisfies GenerateReply;
          throw e;
        } finally {
          running.delete(m.call);
        }
      }
      case 'abort':
        running.get(m.call)?.abort();
        return undefined;
      case 'publish':
        generator.publish(new Map(m.weights));
        return generator.version;
      case 'served':
        return generator.servedModel();
      case 'close':
        return generator.close();
    }
  };
  serveCalls(port, (m: GenerationCall & { id: number }, emit) => handle(m, emit), { concurrent: true });
}

if (parentPort) {
  const port = parentPort;
  main(port, threadData<GenerationWorkerData>()).catch((e) => port.postMessage({ op: 'failed', error: (e as Error).message }));
}
