import { ConfigError, loadConfig } from './config.js';
import { createLogger, flushLogger } from './core/logger.js';
import { ScenarioError } from './scenarios/index.js';
import { describeStartup, startSandbox } from './server.js';
import { FixtureError } from './store/fixtures.js';
import { StoreFileError } from './store/open-store.js';

/** The process entry: the only module that touches process.env, signals and exit codes. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const sandbox = await startSandbox(config, { logger });
  process.stderr.write(describeStartup(sandbox.report));

  const stop = (signal: string): void => {
    logger.info('stopping', { signal });
    sandbox
      .stop()
      .then(async () => {
        logger.info('stopped');
        await flushLogger(logger);
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

/** A start-up failure as one readable message; only unexpected errors carry a stack. */
function describeStartupError(error: unknown): string {
  if (error instanceof ConfigError || error instanceof FixtureError || error instanceof StoreFileError || error instanceof ScenarioError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `${(error as Error).message}: another process uses this port; stop it or set PORT (0 picks a free port)`;
  if (code === 'EACCES') return `${(error as Error).message}: not allowed to listen there; pick a PORT above 1023 or another HOST`;
  return (error as Error).stack ?? String(error);
}

main().catch((error: unknown) => {
  process.stderr.write(`water-sandbox failed to start.\n${describeStartupError(error)}\n`);
  process.exitCode = 1;
});
