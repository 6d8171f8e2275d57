/**
 * Which licences a package may have for its code to be bundled into what water-sandbox ships (the
 * server, the healthcheck, the dashboard's and the API reference's files, the package's entry
 * points), all under Apache-2.0. The build refuses any other (third-party-notices.ts).
 *
 * Each entry is a permissive licence whose conditions the notices file meets: it carries every
 * package's licence text and notices, so the copyright and permission notices go with each copy.
 * Not on the list, so refused until someone decides otherwise and adds it here with the reason:
 * copyleft licences (GPL, LGPL, AGPL, MPL, EPL: they set terms on the work or the files that
 * contain them), licences that restrict use (SSPL, BUSL, "Commons Clause", non-commercial ones),
 * and anything that is not an SPDX identifier ("SEE LICENSE IN ...", "UNLICENSED", none at all).
 */
export const ALLOWED_LICENCES: Readonly<Record<string, string>> = {
  MIT: 'permissive; its one condition, its copyright and permission notice in every copy, is met by the notices file',
  ISC: 'permissive, the MIT licence in fewer words; the same condition, met the same way',
  'BSD-2-Clause':
    'permissive; its conditions (the copyright notice, the conditions and the disclaimer in the documentation of a binary form) are met by the notices file',
  'BSD-3-Clause':
    "as BSD-2-Clause, and the authors' names may not endorse the product without permission: the sandbox names none",
  'Apache-2.0':
    "the sandbox's own licence; a package's NOTICE file, where it has one, is carried in the notices file (its section 4(d))",
  '0BSD': 'permissive, with no condition at all',
};

export type LicenceVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether a package whose package.json declares `expression` (an SPDX licence expression) may be
 * bundled: every licence joined by AND must be allowed, one of those joined by OR is enough. An
 * exception (`X WITH Y`) counts as a licence of its own, so it needs an entry of its own.
 */
export function licenceVerdict(expression: string): LicenceVerdict {
  const tokens = expression.match(/[()]|[^\s()]+/g) ?? [];
  let at = 0;
  const fail = (reason: string): never => {
    throw new LicenceExpressionError(reason);
  };
  // or := and ("OR" and)* ; and := term ("AND" term)* ; term := "(" or ")" | id ["WITH" id]
  const parseOr = (): LicenceVerdict => {
    const verdicts = [parseAnd()];
    while (tokens[at] === 'OR') {
      at++;
      verdicts.push(parseAnd());
    }
    return (
      verdicts.find((v) => v.allowed) ?? {
        allowed: false,
        reason: verdicts.map((v) => (v.allowed ? '' : v.reason)).join('; and '),
      }
    );
  };
  const parseAnd = (): LicenceVerdict => {
    const verdicts = [parseTerm()];
    while (tokens[at] === 'AND') {
      at++;
      verdicts.push(parseTerm());
    }
    return verdicts.find((v) => !v.allowed) ?? { allowed: true };
  };
  const parseTerm = (): LicenceVerdict => {
    const token = tokens[at++];
    if (token === undefined) return fail('it ends where a licence was expected');
    if (token === '(') {
      const inner = parseOr();
      if (tokens[at++] !== ')') fail('a parenthesis is not closed');
      return inner;
    }
    if (['AND', 'OR', 'WITH', ')'].includes(token)) return fail(`"${token}" stands where a licence was expected`);
    let id = token;
    if (tokens[at] === 'WITH') {
      const exception = tokens[at + 1];
      if (exception === undefined) return fail('WITH names no exception');
      id = `${token} WITH ${exception}`;
      at += 2;
    }
    return Object.hasOwn(ALLOWED_LICENCES, id)
      ? { allowed: true }
      : { allowed: false, reason: `${id} is not on the allowed list` };
  };
  try {
    if (tokens.length === 0) fail('it is empty');
    const verdict = parseOr();
    if (at < tokens.length) fail(`"${tokens.slice(at).join(' ')}" follows a whole expression`);
    return verdict;
  } catch (error) {
    if (!(error instanceof LicenceExpressionError)) throw error;
    return { allowed: false, reason: `"${expression}" is not an SPDX licence expression: ${error.message}` };
  }
}

class LicenceExpressionError extends Error {}
