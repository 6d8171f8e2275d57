/** The arguments of `water-sandbox listen` that forward what the sandbox sends an account's subscriptions to a local URL; more options after. */
export function listenCommand(
  to: { forwardTo: string; sandbox: string; apiKey: string },
  ...options: string[]
): string[] {
  return ['listen', '--forward-to', to.forwardTo, '--sandbox', to.sandbox, '--api-key', to.apiKey, ...options];
}
