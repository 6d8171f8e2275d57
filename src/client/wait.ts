import { performance } from 'node:perf_hooks';

export interface WaitOptions {
  /** How long to wait in all (default 10 000 ms). */
  timeoutMs?: number;
  /** How long between two looks (default 100 ms). */
  intervalMs?: number;
}

/** Raised when a wait ran out of time; its message says what was last seen. */
export class WaitTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

/**
 * Looks with `look` until it answers something other than null, every `intervalMs`, for at most
 * `timeoutMs` (one last look at the deadline); then throws a WaitTimeoutError with `describe()`.
 */
export async function waitUntil<T>(
  look: () => Promise<T | null>,
  options: WaitOptions = {},
  describe: () => string = () => 'nothing came',
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== null) return found;
    const left = deadline - performance.now();
    if (left <= 0) throw new WaitTimeoutError(`waited ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
