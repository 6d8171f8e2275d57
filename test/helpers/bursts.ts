/**
 * Of attempts sent at once to a limit that counts before it checks, at most `limit` were checked
 * (answered `checked`), at least one was, and every other one was refused with 429 (a burst may
 * be refused a little early: attempts being checked count, so the limit is never passed).
 */
export function expectAtMostChecked(limit: number, statuses: readonly number[], checked: number): void {
  const seen = statuses.filter((s) => s === checked).length;
  expect(seen).toBeGreaterThanOrEqual(1);
  expect(seen).toBeLessThanOrEqual(limit);
  expect(statuses.filter((s) => s === 429)).toHaveLength(statuses.length - seen);
}
