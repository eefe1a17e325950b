// `online serve`: the service from its settings (ServeSettings: the service's configuration),
// running until SIGINT or SIGTERM, then closed (the running update finished, a checkpoint written).
import { initBackend } from '@rlhf-code/backend';
import { checkpointAt } from '@rlhf-code/model';
import type { ServeSettings } from '@rlhf-code/online-core';
import { startOnlineService } from './service';

export async function runServe(config: ServeSettings): Promise<void> {
  const start = checkpointAt(config.model, '--model'); // a checkpoint or a LoRA adapter folder (its base plus the adapter)
  await initBackend();
  const service = await startOnlineService(config, { start });
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`[online] ${signal}: stopping (finishing the running update, writing a checkpoint)\n`);
      service.close().then(resolve, (e) => {
        process.stderr.write(`[online] error while stopping: ${(e as Error).message}\n`);
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
