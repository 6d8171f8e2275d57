import { parseBasicCredentials } from '../../src/auth/clients.js';
import { uriProblem } from '../../src/auth/registration.js';
import {
  codeProblem,
  DEAD_KEPT,
  expireAccessTokens,
  pruneGrants,
  pruneInternalTokens,
  REFRESH_TOKEN_LIFETIME_MS,
  refreshProblem,
  RETENTION_MS,
  revokeGrant,
  tokenNowMs,
  tokenTail,
} from '../../src/auth/tokens.js';
import { OAuthError } from '../../src/core/errors.js';
import { escapeHtml, html, trusted } from '../../src/http/html.js';
import { emptyAccountDoc, type AccountDoc } from '../../src/store/data.js';

describe('parseBasicCredentials', () => {
  const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

  it('returns null without a header', () => {
    expect(parseBasicCredentials(undefined)).toBeNull();
  });

  it('form-decodes each part after base64 (RFC 6749 section 2.3.1)', () => {
    expect(parseBasicCredentials(basic('my+app%3A1:s%2Bcret%25+x'))).toEqual({
      clientId: 'my app:1',
      clientSecret: 's+cret% x',
    });
  });

  it('splits at the first ":" so a secret may contain more', () => {
    expect(parseBasicCredentials(basic('id:a:b'))).toEqual({ clientId: 'id', clientSecret: 'a:b' });
  });

  it('decodes UTF-8', () => {
    expect(parseBasicCredentials(basic('%C3%BC:x'))).toEqual({ clientId: 'ü', clientSecret: 'x' });
  });

  it.each([['Bearer abc'], ['Basic'], ['Basic !!!'], [basic('no-colon')], [basic('id:%E0%A4%A')]])(
    'refuses %s with invalid_client',
    (header) => {
      expect(() => parseBasicCredentials(header)).toThrow(OAuthError);
    },
  );
});

describe('html', () => {
  it('escapes every interpolated value', () => {
    expect(html`<p title="${'"x"'}">${"<b>&'`"}</p>`.value).toBe(
      '<p title="&quot;x&quot;">&lt;b&gt;&amp;&#39;&#96;</p>',
    );
  });

  it('keeps nested html and trusted markup as they are', () => {
    expect(html`<div>${html`<i>${'<'}</i>`}${trusted('<hr>')}${[html`<br>`, '<']}</div>`.value).toBe(
      '<div><i>&lt;</i><hr><br>&lt;</div>',
    );
  });

  it('renders null, undefined and false as nothing', () => {
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
  });

  it('escapeHtml leaves ordinary text alone', () => {
    expect(escapeHtml('Demo Water App')).toBe('Demo Water App');
  });
});

describe('uriProblem', () => {
  it.each([
    'https://a.example/cb',
    'http://localhost/cb',
    'http://127.0.0.1:1/cb',
    'http://[::1]/cb',
    'waterapp://cb',
    'com.example:/cb',
  ])('accepts %s as a redirect URI', (uri) => {
    expect(uriProblem('redirectUri', uri, true)).toBeNull();
  });

  it.each([
    'http://a.example/cb',
    'http://localhost.evil.example/cb',
    'http://127.0.0.2/cb',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'https://a.example/#x',
    'cb',
  ])('refuses %s as a redirect URI', (uri) => {
    expect(uriProblem('redirectUri', uri, true)).toMatch(/^redirectUri /);
  });

  it('refuses custom schemes for sign-out URIs', () => {
    expect(uriProblem('signOutUri', 'waterapp://out', false)).toContain('signOutUri must use https');
  });
});

describe('tokenTail', () => {
  it("keeps a token's last 8 characters: enough to tell an account's tokens apart in its journal, too few to use", () => {
    expect(tokenTail('0123456789abcdefghij')).toBe('cdefghij');
    expect(tokenTail('short')).toBe('short');
  });
});

describe('codeProblem and refreshProblem', () => {
  const NOW_MS = Date.UTC(2026, 10, 25, 12);
  const code = {
    code: 'c',
    clientId: 'app',
    redirectUri: 'https://app.test/cb',
    userId: 'u',
    accountId: 'a',
    expiresAt: new Date(NOW_MS + 1).toISOString(),
    usedAt: null,
  };
  const problem = (error: ReturnType<typeof codeProblem>) =>
    error === null ? null : { status: error.status, code: error.code, message: error.message };

  it('lets the client of the code exchange it before it expires, at its redirect URI', () => {
    expect(codeProblem(code, { clientId: 'app', redirectUri: 'https://app.test/cb', nowMs: NOW_MS })).toBeNull();
  });

  it('refuses it as invalid_grant to another client, at its expiry instant, or at another redirect URI, saying which', () => {
    expect(
      problem(codeProblem(code, { clientId: 'other', redirectUri: 'https://app.test/cb', nowMs: NOW_MS })),
    ).toEqual({ status: 400, code: 'invalid_grant', message: 'The code was issued to another client' });
    expect(
      problem(codeProblem(code, { clientId: 'app', redirectUri: 'https://app.test/cb', nowMs: NOW_MS + 1 })),
    ).toEqual({
      status: 400,
      code: 'invalid_grant',
      message: `The code expired at ${code.expiresAt}; codes are valid for a few minutes: sign in again`,
    });
    expect(problem(codeProblem(code, { clientId: 'app', redirectUri: 'https://app.test/cb/', nowMs: NOW_MS }))).toEqual(
      {
        status: 400,
        code: 'invalid_grant',
        message:
          'redirect_uri must be exactly the one of the authorization request ("https://app.test/cb"); got "https://app.test/cb/"',
      },
    );
  });

  it('refuses a refresh token to another client, and from the instant it expires', () => {
    const createdAtMs = NOW_MS - REFRESH_TOKEN_LIFETIME_MS;
    const token = {
      refreshToken: 'r',
      clientId: 'app',
      userId: 'u',
      accountId: 'a',
      grantId: 'g',
      redirectUri: 'https://app.test/cb',
      createdAt: new Date(createdAtMs).toISOString(),
      revokedAt: null,
    };
    expect(refreshProblem(token, { clientId: 'app', nowMs: NOW_MS - 1 })).toBeNull();
    expect(problem(refreshProblem(token, { clientId: 'other', nowMs: NOW_MS - 1 }))).toEqual({
      status: 400,
      code: 'invalid_grant',
      message: 'The refresh_token was issued to another client',
    });
    expect(problem(refreshProblem(token, { clientId: 'app', nowMs: NOW_MS }))).toEqual({
      status: 400,
      code: 'invalid_grant',
      message: `The refresh_token expired at ${new Date(NOW_MS).toISOString()}; sign in again through /login`,
    });
  });
});

describe('grants in the store', () => {
  const DAY = 24 * 3600_000;
  const at = (ms: number): string => new Date(ms).toISOString();
  const accountWithoutGrants = (nowMs: number): AccountDoc =>
    emptyAccountDoc({ accountId: 'a', name: 'A', origin: 'generated', initialLocations: [], createdAt: at(nowMs) });

  function dataWith(nowMs: number): AccountDoc {
    const d = accountWithoutGrants(nowMs);
    const base = { clientId: 'c', userId: 'u', accountId: 'a' };
    d.authorizationCodes.push({
      ...base,
      code: 'old',
      redirectUri: 'x',
      expiresAt: at(nowMs - RETENTION_MS),
      usedAt: null,
    });
    d.authorizationCodes.push({
      ...base,
      code: 'recent',
      redirectUri: 'x',
      expiresAt: at(nowMs - RETENTION_MS + 1),
      usedAt: at(nowMs - DAY),
    });
    d.accessTokens.push({
      ...base,
      accessToken: 'expired-long-ago',
      grantId: 'g1',
      expiresAt: at(nowMs - RETENTION_MS),
      revokedAt: null,
    });
    d.accessTokens.push({ ...base, accessToken: 'live', grantId: 'g2', expiresAt: at(nowMs + 1000), revokedAt: null });
    d.accessTokens.push({
      ...base,
      accessToken: 'revoked-long-ago',
      grantId: 'g2',
      expiresAt: at(nowMs + 1000),
      revokedAt: at(nowMs - RETENTION_MS),
    });
    d.refreshTokens.push({
      ...base,
      refreshToken: 'spent-recently',
      grantId: 'g2',
      redirectUri: 'x',
      createdAt: at(nowMs - DAY),
      revokedAt: at(nowMs - 1000),
    });
    d.refreshTokens.push({
      ...base,
      refreshToken: 'too-old',
      grantId: 'g3',
      redirectUri: 'x',
      createdAt: at(nowMs - 31 * DAY),
      revokedAt: null,
    });
    d.refreshTokens.push({
      ...base,
      refreshToken: 'live',
      grantId: 'g2',
      redirectUri: 'x',
      createdAt: at(nowMs),
      revokedAt: null,
    });
    return d;
  }

  it('pruneGrants drops what died more than RETENTION_MS ago and keeps the rest', () => {
    const nowMs = Date.UTC(2026, 2, 10);
    const d = dataWith(nowMs);
    pruneGrants(d, nowMs);
    expect(d.authorizationCodes.map((c) => c.code)).toEqual(['recent']);
    expect(d.accessTokens.map((x) => x.accessToken)).toEqual(['live']);
    expect(d.refreshTokens.map((x) => x.refreshToken)).toEqual(['spent-recently', 'live']);
  });

  it('pruneGrants keeps the newest DEAD_KEPT dead ones of each kind within the retention (a clock standing still never passes it), and every live one', () => {
    const nowMs = Date.UTC(2026, 2, 10);
    const d = accountWithoutGrants(nowMs);
    const base = { clientId: 'c', userId: 'u', accountId: 'a', grantId: 'g' };
    for (let i = 0; i < DEAD_KEPT + 30; i++) {
      d.accessTokens.push({
        ...base,
        accessToken: `revoked-${i}`,
        expiresAt: at(nowMs + 1000),
        revokedAt: at(nowMs - 1000),
      });
      d.accessTokens.push({ ...base, accessToken: `live-${i}`, expiresAt: at(nowMs + 1000), revokedAt: null });
      d.refreshTokens.push({
        ...base,
        refreshToken: `spent-${i}`,
        redirectUri: 'x',
        createdAt: at(nowMs),
        revokedAt: at(nowMs),
      });
      d.authorizationCodes.push({
        ...base,
        code: `used-${i}`,
        redirectUri: 'x',
        expiresAt: at(nowMs + 1000),
        usedAt: at(nowMs - 1),
      });
    }
    pruneGrants(d, nowMs);
    const revoked = d.accessTokens.filter((x) => x.revokedAt !== null).map((x) => x.accessToken);
    expect(revoked).toEqual(Array.from({ length: DEAD_KEPT }, (_, i) => `revoked-${i + 30}`));
    expect(d.accessTokens.filter((x) => x.revokedAt === null)).toHaveLength(DEAD_KEPT + 30);
    expect(d.refreshTokens.map((x) => x.refreshToken)).toEqual(
      Array.from({ length: DEAD_KEPT }, (_, i) => `spent-${i + 30}`),
    );
    expect(d.authorizationCodes).toHaveLength(DEAD_KEPT);
    // Issue order is kept.
    expect(d.accessTokens.slice(0, 3).map((x) => x.accessToken)).toEqual(['live-0', 'live-1', 'live-2']);
  });

  it('pruneGrants measures from the now it is given (the account clock)', () => {
    const nowMs = Date.UTC(2026, 2, 10);
    const d = dataWith(nowMs);
    pruneGrants(d, nowMs - 10 * DAY);
    expect(d.accessTokens).toHaveLength(3);
  });

  it('revokeGrant revokes the live tokens of one grant only', () => {
    const nowMs = Date.UTC(2026, 2, 10);
    const d = dataWith(nowMs);
    expect(revokeGrant(d, 'g2', at(nowMs))).toBe(2);
    expect(d.accessTokens.find((x) => x.accessToken === 'live')?.revokedAt).toBe(at(nowMs));
    expect(d.refreshTokens.find((x) => x.refreshToken === 'too-old')?.revokedAt).toBeNull();
  });

  it('expireAccessTokens ends the live access tokens it picks now (not the revoked or expired), counts them, and leaves the others', () => {
    const nowMs = Date.UTC(2026, 2, 10);
    const d = dataWith(nowMs);
    d.accessTokens.push({
      clientId: 'c',
      userId: 'u',
      accountId: 'a',
      accessToken: 'ends-now',
      grantId: 'g4',
      expiresAt: at(nowMs),
      revokedAt: null,
    });
    d.accessTokens.push({
      clientId: 'c',
      userId: 'u',
      accountId: 'a',
      accessToken: 'other',
      grantId: 'g4',
      expiresAt: at(nowMs + 5000),
      revokedAt: null,
    });
    const expiresAt = () => Object.fromEntries(d.accessTokens.map((x) => [x.accessToken, x.expiresAt]));
    const before = expiresAt();
    // The process clock is a week behind: a partner's token is expired on the account clock.
    const clocks = { accountMs: nowMs, processMs: nowMs - 7 * DAY };
    expect(expireAccessTokens(d, clocks, (token) => token.accessToken !== 'other')).toBe(1);
    expect(expiresAt()).toEqual({ ...before, live: at(nowMs) });
    expect(expireAccessTokens(d, clocks)).toBe(1);
    expect(expiresAt().other).toBe(at(nowMs));
    expect(expireAccessTokens(d, clocks)).toBe(0);
  });

  describe("the sandbox's own (internal) access tokens, whose times are on the process clock", () => {
    const internal = (accessToken: string, expiresAt: number, revokedAt: number | null = null) => ({
      clientId: 'sandbox-dashboard',
      userId: 'u',
      accountId: 'a',
      grantId: 'dashboard-g',
      accessToken,
      expiresAt: at(expiresAt),
      revokedAt: revokedAt === null ? null : at(revokedAt),
      internal: true as const,
    });

    const partner = (accessToken: string, expiresAt: number) => ({
      clientId: 'c',
      userId: 'u',
      accountId: 'a',
      grantId: 'g',
      accessToken,
      expiresAt: at(expiresAt),
      revokedAt: null,
    });

    it('are read against the process clock by tokenNowMs, a partner token against the account clock', () => {
      const clocks = { accountMs: 7 * DAY, processMs: 1000 };
      expect(tokenNowMs(internal('i', 0), clocks)).toBe(1000);
      expect(tokenNowMs({}, clocks)).toBe(7 * DAY);
    });

    it("expireAccessTokens ends them at the process clock's now", () => {
      const processMs = Date.UTC(2026, 2, 10);
      const d = accountWithoutGrants(processMs);
      d.accessTokens.push(internal('page', processMs + 3600_000));
      expect(expireAccessTokens(d, { accountMs: processMs + 7 * DAY, processMs })).toBe(1);
      expect(d.accessTokens[0]?.expiresAt).toBe(at(processMs));
    });

    it('pruneGrants leaves them to pruneInternalTokens, which prunes them on the process clock, in issue order', () => {
      const processMs = Date.UTC(2026, 2, 10);
      const d = accountWithoutGrants(processMs);
      d.accessTokens.push(internal('page-live', processMs + 3600_000));
      d.accessTokens.push(partner('partner-dead', processMs - RETENTION_MS));
      d.accessTokens.push(internal('page-dead-long-ago', processMs - RETENTION_MS));
      d.accessTokens.push(internal('page-revoked-long-ago', processMs + 3600_000, processMs - RETENTION_MS));
      // The account clock is a week ahead: on it, every internal token would be dead for long.
      pruneGrants(d, processMs + 7 * DAY);
      expect(d.accessTokens.map((x) => x.accessToken)).toEqual([
        'page-live',
        'page-dead-long-ago',
        'page-revoked-long-ago',
      ]);
      pruneInternalTokens(d, processMs);
      expect(d.accessTokens.map((x) => x.accessToken)).toEqual(['page-live']);
    });

    it('pruneInternalTokens keeps the newest DEAD_KEPT dead ones and every live one, and leaves partner tokens alone', () => {
      const processMs = Date.UTC(2026, 2, 10);
      const d = accountWithoutGrants(processMs);
      d.accessTokens.push(partner('partner-dead', 0));
      for (let i = 0; i < DEAD_KEPT + 5; i++) d.accessTokens.push(internal(`dead-${i}`, processMs - 1000));
      d.accessTokens.push(internal('live', processMs + 1000));
      pruneInternalTokens(d, processMs);
      expect(d.accessTokens.map((x) => x.accessToken)).toEqual([
        'partner-dead',
        ...Array.from({ length: DEAD_KEPT }, (_, i) => `dead-${i + 5}`),
        'live',
      ]);
    });
  });
});
