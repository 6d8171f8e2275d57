import { ConfigError, loadConfig } from './config.js';
import { createJsonLogger } from './core/logger.js';
import { ScenarioError } from './scenarios/catalog.js';
import { startSandbox } from './server.js';
import { FixtureError } from './store/fixtures.js';
import { StoreFileError } from './store/lowdb-store.js';

/** The process entry: the only module that touches process.env, signals and exit codes. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createJsonLogger(config.logLevel);
  const sandbox = await startSandbox(config, { logger });

  const stop = (signal: string): void => {
    logger.info('stopping', { signal });
    sandbox
      .stop()
      .then(() => {
        logger.info('stopped');
        process.exitCode = 0;
      })
      .catch((error: unknown) => {
        logger.error('stopping failed', { err: error });
        process.exitCode = 1;
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof FixtureError || error instanceof StoreFileError || error instanceof ScenarioError;
  const detail = known ? (error as Error).message : ((error as Error).stack ?? String(error));
  process.stderr.write(`water-sandbox failed to start.\n${detail}\n`);
  process.exitCode = 1;
});
