import { findClient } from '../../src/auth/clients.js';
import { grantCode, redeem, type Redemption } from '../../src/auth/grants.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_CLIENT } from '../helpers/demo.js';
import { NATIVE_REDIRECT_URI } from '../helpers/oauth.js';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});

/** A test app, the demo client, and a code issued to the demo account's first user. */
async function withCode(): Promise<{
  t: TestApp;
  client: NonNullable<Awaited<ReturnType<typeof findClient>>>;
  code: string;
  userId: string;
}> {
  const t = await buildTestApp({ env: { TOKEN_DELIVERY: 'false' } });
  apps.push(t);
  const client = (await findClient(t.deps, DEMO_CLIENT.clientId))!;
  const user = (await docOf(t)).users[0]!;
  const code = await grantCode(
    t.deps,
    {
      clientId: client.clientId,
      redirectUri: NATIVE_REDIRECT_URI,
      state: null,
      scope: null,
      codeChallenge: null,
      codeChallengeMethod: null,
    },
    user,
    { consented: false },
  );
  return { t, client, code, userId: user.userId };
}

const byCode = (code: string): Redemption => ({
  grantType: 'authorization_code',
  code,
  redirectUri: NATIVE_REDIRECT_URI,
});
const byRefresh = (refreshToken: string): Redemption => ({ grantType: 'refresh_token', refreshToken });

describe('redeem: one way for a code and a refresh token', () => {
  it('redeems a code, then its refresh token, each for tokens of the same grant', async () => {
    const { t, client, code } = await withCode();
    const first = await redeem(t.deps, client, byCode(code));
    const second = await redeem(t.deps, client, byRefresh(first.response.refresh_token));
    expect(second).toMatchObject({
      accountId: first.accountId,
      redirectUri: NATIVE_REDIRECT_URI,
      response: { token_type: 'Bearer' },
    });
    const grants = new Set(
      (await docOf(t)).accessTokens
        .filter((a) => [first.response.access_token, second.response.access_token].includes(a.accessToken))
        .map((a) => a.grantId),
    );
    expect([...grants]).toEqual([code]);
  });

  it('spends each: a second use is an invalid_grant that revokes the grant', async () => {
    const { t, client, code } = await withCode();
    const first = await redeem(t.deps, client, byCode(code));
    await redeem(t.deps, client, byRefresh(first.response.refresh_token));
    await expect(redeem(t.deps, client, byRefresh(first.response.refresh_token))).rejects.toMatchObject({
      code: 'invalid_grant',
      message: expect.stringContaining('already used or revoked'),
    });
    await expect(redeem(t.deps, client, byCode(code))).rejects.toMatchObject({
      code: 'invalid_grant',
      message: expect.stringContaining('already used'),
    });
    expect((await docOf(t)).accessTokens.filter((a) => a.grantId === code).every((a) => a.revokedAt !== null)).toBe(
      true,
    );
  });

  it.each([
    [
      'a code',
      (_t: TestApp, _client: Parameters<typeof redeem>[1], code: string): Promise<Redemption> =>
        Promise.resolve(byCode(code)),
    ],
    [
      'a refresh token',
      async (t: TestApp, client: Parameters<typeof redeem>[1], code: string): Promise<Redemption> =>
        byRefresh((await redeem(t.deps, client, byCode(code))).response.refresh_token),
    ],
  ])('refuses %s once its user is gone, and leaves it unspent', async (_what, redemptionOf) => {
    const { t, client, code, userId } = await withCode();
    const redemption = await redemptionOf(t, client, code);
    await t.store.accounts.update((await docOf(t)).account.accountId, (d) => {
      d.users = d.users.filter((u) => u.userId !== userId);
    });
    await expect(redeem(t.deps, client, redemption)).rejects.toMatchObject({
      code: 'invalid_grant',
      message: 'The user who signed in no longer exists',
    });
    const doc = await docOf(t);
    if (redemption.grantType === 'authorization_code')
      expect(doc.authorizationCodes.find((c) => c.code === code)?.usedAt).toBeNull();
    else expect(doc.refreshTokens.find((r) => r.refreshToken === redemption.refreshToken)?.revokedAt).toBeNull();
  });

  it('asks for what each grant type needs before looking anything up', async () => {
    const { t, client } = await withCode();
    await expect(
      redeem(t.deps, client, { grantType: 'authorization_code', code: undefined, redirectUri: NATIVE_REDIRECT_URI }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'code is required with grant_type=authorization_code',
    });
    await expect(
      redeem(t.deps, client, { grantType: 'authorization_code', code: 'x', redirectUri: undefined }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(redeem(t.deps, client, { grantType: 'refresh_token', refreshToken: undefined })).rejects.toMatchObject(
      { code: 'invalid_request', message: 'refresh_token is required with grant_type=refresh_token' },
    );
    await expect(redeem(t.deps, client, byRefresh('unknown'))).rejects.toMatchObject({
      code: 'invalid_grant',
      message: expect.stringContaining('unknown'),
    });
  });
});
