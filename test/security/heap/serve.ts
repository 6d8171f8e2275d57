// A sandbox in a child process, as `npm start` runs it (the embedded store in a folder), for
// heap.test.ts: `node --max-old-space-size=<n> --import ../../store/crash/register-ts.mjs serve.ts '<env as JSON>'`.
// Prints "listening <url>" once it answers.
import { loadConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/core/logger.js';
import { startSandbox } from '../../../src/server.js';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const sandbox = await startSandbox(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }), {
  logger: silentLogger,
});
process.stdout.write(`listening ${sandbox.url}\n`);
process.on('SIGTERM', () => void sandbox.stop().then(() => process.exit(0)));
