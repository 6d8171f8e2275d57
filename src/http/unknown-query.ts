import { nearMatch } from '../core/near-match.js';

/** SANDBOX: names the /v1 query parameters production would ignore in silence. */
export const WARNING_HEADER = 'X-Sandbox-Warning';

/** What people send for the API's parameters (squashed: lower case, no `_` or `-`), by the parameter they mean. */
const ALIASES: Readonly<Record<string, string>> = {
  pagesize: 'perPage',
  limit: 'perPage',
  size: 'perPage',
  count: 'perPage',
  pagenumber: 'page',
  pageno: 'page',
  start: 'startTime',
  from: 'startTime',
  since: 'startTime',
  startdate: 'startTime',
  begin: 'startTime',
  end: 'endTime',
  to: 'endTime',
  until: 'endTime',
  enddate: 'endTime',
  group: 'groupBy',
  interval: 'groupBy',
  granularity: 'groupBy',
  period: 'groupBy',
  token: 'confirmationToken',
};

const MAX_NAMED = 10;
const MAX_NAME_LENGTH = 40;

/** A parameter name as header text: quoted, ASCII only (a header cannot carry other characters), bounded. */
function quoted(name: string): string {
  const short = name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}...` : name;
  return JSON.stringify(short).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The X-Sandbox-Warning text for a /v1 request whose query has parameters the operation does not
 * know (production ignores them, and so does the sandbox), or null when it has none:
 * `ignored, as production does: unknown query parameter "pagesize" (did you mean "perPage"?)`.
 */
export function unknownQueryWarning(sent: readonly string[], known: readonly string[]): string | null {
  const unknown = sent.filter((name) => !known.includes(name));
  if (unknown.length === 0) return null;
  const named = unknown.slice(0, MAX_NAMED).map((name) => {
    const near = nearMatch(name, known, ALIASES);
    return near === undefined ? quoted(name) : `${quoted(name)} (did you mean ${quoted(near)}?)`;
  });
  const more = unknown.length > MAX_NAMED ? ` and ${unknown.length - MAX_NAMED} more` : '';
  return `ignored, as production does: unknown query parameter${unknown.length === 1 ? '' : 's'} ${named.join(', ')}${more}`;
}
