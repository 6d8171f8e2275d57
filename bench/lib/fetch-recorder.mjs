// Loaded with `node --import` into a program that calls the sandbox with fetch (the careful sample
// integration in bench/hostile.js): records each call's method, path, status, whether the answer
// was a fault the program asked for (X-Sandbox-Fault), its time to the answer's headers, or the
// error it failed with, and writes them as JSON to FETCH_RECORD_FILE when the program exits.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.FETCH_RECORD_FILE;
const records = [];
const original = globalThis.fetch;

globalThis.fetch = async (input, init = {}) => {
  const started = performance.now();
  const url = new URL(String(input instanceof Request ? input.url : input));
  const method = init.method ?? (input instanceof Request ? input.method : 'GET');
  try {
    const res = await original(input, init);
    records.push({
      method,
      path: url.pathname,
      status: res.status,
      injected: res.headers.has('x-sandbox-fault'),
      ms: performance.now() - started,
    });
    return res;
  } catch (error) {
    records.push({
      method,
      path: url.pathname,
      status: null,
      error: String(error?.cause?.code ?? error?.message ?? error),
      ms: performance.now() - started,
    });
    throw error;
  }
};

process.on('exit', () => {
  if (file) writeFileSync(file, JSON.stringify(records));
});
// Stopped from outside (the sandbox went away while it waited for a webhook): the records are still written.
process.on('SIGTERM', () => process.exit(143));
