/**
 * Whether something of `key` is due to be recorded at `nowMs`: at most once per `intervalMs` per
 * key, so bookkeeping that follows requests (an account's last request, an app's last use) costs
 * a write per interval, not per request. It remembers at most `maxKeys` keys (then forgets them
 * all: the next of each is recorded again, never one too few). A clock that went back records.
 */
export function onceEvery(
  intervalMs: number,
  maxKeys: number,
): { due(key: string, nowMs: number): boolean; forget(key: string): void } {
  const last = new Map<string, number>();
  return {
    due(key, nowMs) {
      const at = last.get(key);
      if (at !== undefined && nowMs - at < intervalMs && nowMs >= at) return false;
      if (last.size >= maxKeys) last.clear();
      last.set(key, nowMs);
      return true;
    },
    /** A recording that failed: the next request records it again. */
    forget(key) {
      last.delete(key);
    },
  };
}
