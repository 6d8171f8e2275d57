import type { Response } from 'express';

const HOOKS = Symbol('after response');
type Hooked = { [HOOKS]?: (() => void)[] };

/**
 * Runs `hook` once the response has been handed to the socket ('finish'), in the order the
 * hooks were added. However many features ask (metrics, the request log, the journal), a
 * response gets one listener: each listener costs every request its share of the hot path.
 */
export function afterResponse(res: Response, hook: () => void): void {
  // Kept in res.locals: a property added to the response object itself costs several times more.
  const hooked = res.locals as Hooked;
  const hooks = hooked[HOOKS];
  if (hooks !== undefined) {
    hooks.push(hook);
    return;
  }
  const added = [hook];
  hooked[HOOKS] = added;
  res.on('finish', () => {
    for (const run of added) run();
  });
}
