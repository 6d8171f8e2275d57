/**
 * What the delivery log holds of a request the sandbox refused to send (an address the policy
 * blocks): failed at once and never retried, one attempt with no status and no answer, the rule
 * as its error. `attempt` adds what else the attempt must hold.
 */
export function refusedDelivery(error: unknown, attempt: Record<string, unknown> = {}): unknown {
  return expect.objectContaining({
    state: 'failed',
    dueAtMs: null,
    attempts: [expect.objectContaining({ statusCode: null, responseExcerpt: null, ...attempt, error })],
  });
}
