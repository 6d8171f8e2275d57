/** Waiting in tests for what cannot be awaited directly: a condition polled, a promise with a deadline, a gate opened by hand. */

/** Polls `check` until it returns something other than null (or false), or fails after the deadline. */
export async function eventually<T>(
  check: () => T | null | false | Promise<T | null | false>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets other work run for `n` turns of the event loop. */
export async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A promise and the function that settles it, for a test to hold work back until it says so. */
export function deferred(): { promise: Promise<void>; resolve: () => void };
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void };
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Fails instead of hanging when `promise` does not settle in time. */
export async function withDeadline<T>(promise: Promise<T>, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
