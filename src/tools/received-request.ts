/**
 * How `npm run receiver` prints a request it got: a blank line, the method and the path, then
 * the body when there is one. The docs show the receiver's terminal in this form, and their
 * test prints what its receiver got the same way to compare.
 */
export function describeReceivedRequest(method: string, url: string, body: string): string {
  return `\n${method} ${url}\n${body ? `${body}\n` : ''}`;
}
