import { MAX_ANSWERED_CONSENT_PAGES, spendConsentPage } from '../../src/auth/consent-token.js';
import { askForCode, codeIn, registerApp, STRANGER_CALLBACK, useStrangersScene } from '../helpers/allowed-app.js';
import { docOf } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID, DEMO_USER } from '../helpers/demo.js';
import { HostedBrowser, type BrowserAnswer } from '../helpers/hosted-browser.js';

// Issue #40, item 9, on a hosted sandbox over real HTTP: a consent page's token answers once, for
// the very authorization request the page showed. A replay (another state, another parameter, a
// second answer) mints no code.

const scene = useStrangersScene();

const codes = async (): Promise<number> => (await docOf(scene.t)).authorizationCodes.length;

/** The consent page of the stranger's application, for `params` of its authorization request. */
async function consentPage(params: Parameters<typeof askForCode>[2] = {}): Promise<BrowserAnswer> {
  const page = await askForCode(scene.browser, scene.app, params);
  if (page.status !== 200 || !page.text.includes('name="decision"'))
    throw new Error(`expected the consent page, got ${page.status}: ${page.text}`);
  return page;
}

const answer = (page: BrowserAnswer, decision: 'allow' | 'deny', changed: Record<string, string> = {}) =>
  scene.browser.submit(page, '/login/consent', { decision, ...changed });

describe("the consent page's token", () => {
  it('answers once: the same form sent again, with another state or the same, is a 403 and mints no code', async () => {
    const page = await consentPage({ state: 'first' });
    const allowed = await answer(page, 'allow');
    expect(codeIn(allowed)).toEqual(expect.any(String));
    expect(new URL(allowed.location!).searchParams.get('state')).toBe('first');
    const before = await codes();

    for (const state of ['second', 'first']) {
      const replay = await answer(page, 'allow', { state });
      expect({ status: replay.status, location: replay.location }).toEqual({ status: 403, location: null });
    }
    const again = await answer(page, 'allow');
    expect(again.status).toBe(403);
    expect(again.text).toContain('answered already');
    expect(await codes()).toBe(before);
  });

  it.each([
    ['state changed', 'st4te', { state: 'another' }],
    ['state added', null, { state: 'added' }],
    ['scope changed', 'st4te', { scope: 'everything' }],
    ['code_challenge changed', 'st4te', { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }],
    ['code_challenge_method changed', 'st4te', { code_challenge_method: 'plain' }],
  ] as const)(
    'is bound to the whole request: a form with its %s is a 403, and no code',
    async (_name, state, changed) => {
      const page = await consentPage({
        ...(state === null ? {} : { state }),
        extra: { scope: 'read', code_challenge: 'abc', code_challenge_method: 'S256' },
      });
      const before = await codes();
      const forged = await answer(page, 'allow', changed);
      expect({ status: forged.status, location: forged.location }).toEqual({ status: 403, location: null });
      expect(await codes()).toBe(before);
      // The form as it was shown still answers: the refusal spent nothing.
      expect(codeIn(await answer(page, 'allow'))).toEqual(expect.any(String));
    },
  );

  it("is bound to the client and its redirect URI: another application's form fields are refused", async () => {
    const page = await consentPage();
    const other = await registerApp(scene.url, { applicationName: 'Other App' });
    const forged = await answer(page, 'allow', { client_id: other.clientId });
    expect(forged.status).toBe(403);
    expect((await docOf(scene.t)).connectedApps ?? []).toEqual([]);
  });

  it('Deny spends it: the same form answered Allow afterwards is refused', async () => {
    const page = await consentPage();
    const denied = await answer(page, 'deny');
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
    const before = await codes();
    expect((await answer(page, 'allow')).status).toBe(403);
    expect(await codes()).toBe(before);
  });

  it("an answer spends its own page only: another tab's page, and another person's on the shared demo user, still answer once", async () => {
    const first = await consentPage({ state: 'tab-1' });
    const second = await consentPage({ state: 'tab-2' });
    const someoneElse = new HostedBrowser(scene.url);
    await someoneElse.signIn(DEMO_USER);
    const theirs = await askForCode(someoneElse, scene.app, { state: 'theirs' });
    expect(theirs.text).toContain('name="decision"');

    expect(codeIn(await answer(second, 'allow'))).toEqual(expect.any(String));
    const denied = await someoneElse.submit(theirs, '/login/consent', { decision: 'deny' });
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
    const allowed = await answer(first, 'allow');
    expect(new URL(allowed.location!).searchParams.get('state')).toBe('tab-1');
    expect(codeIn(allowed)).toEqual(expect.any(String));
    const before = await codes();
    for (const page of [first, second]) expect((await answer(page, 'allow')).status).toBe(403);
    expect((await someoneElse.submit(theirs, '/login/consent', { decision: 'allow' })).status).toBe(403);
    expect(await codes()).toBe(before);
  });

  it(`remembers at most ${MAX_ANSWERED_CONSENT_PAGES} answered pages: past it a forgotten page counts as answered, never as new`, async () => {
    const page = await consentPage();
    expect(new URL((await answer(page, 'deny')).location!).searchParams.get('error')).toBe('access_denied');
    // Answers of later pages, written straight into the account as the consent route writes them.
    scene.t.clock.advance(1000);
    await scene.t.deps.store.accounts.update(DEMO_ACCOUNT_ID, (d) => {
      for (let i = 0; i < MAX_ANSWERED_CONSENT_PAGES; i += 1)
        spendConsentPage(
          d,
          { page: `later-page-${String(i).padStart(8, '0')}`, shownAtMs: scene.t.clock.now().getTime() },
          scene.t.clock.now().getTime(),
        );
    });
    const doc = await docOf(scene.t);
    expect(doc.answeredConsentPages).toHaveLength(MAX_ANSWERED_CONSENT_PAGES);
    expect(doc.answeredConsentPages?.some((p) => page.text.includes(p.page))).toBe(false);
    const before = await codes();
    const replay = await answer(page, 'allow');
    expect(replay.status).toBe(403);
    expect(replay.text).toContain('answered already');
    expect(await codes()).toBe(before);
    // A page shown now is not among the forgotten: it answers.
    expect(codeIn(await answer(await consentPage(), 'allow'))).toEqual(expect.any(String));
  });

  it('cannot be answered after 15 minutes: a 403 that says the page is too old', async () => {
    const page = await consentPage();
    scene.t.clock.advance(15 * 60 * 1000 + 1000);
    const late = await answer(page, 'allow');
    expect(late.status).toBe(403);
    expect(late.text).toContain('too old');
  });

  it("is this browser's: the same user's other browser cannot answer with it", async () => {
    const page = await consentPage();
    const other = new HostedBrowser(scene.url);
    await other.signIn(DEMO_USER);
    const before = await codes();
    expect((await other.submit(page, '/login/consent', { decision: 'allow' })).status).toBe(403);
    expect(await codes()).toBe(before);
  });

  it('answers at most once when one form is sent many times at once', async () => {
    const page = await consentPage();
    const before = await codes();
    const answers = await Promise.all(Array.from({ length: 8 }, () => answer(page, 'allow')));
    expect(answers.map((a) => a.status).sort()).toEqual([302, 403, 403, 403, 403, 403, 403, 403]);
    expect(await codes()).toBe(before + 1);
    expect(answers.find((a) => a.status === 302)?.location).toMatch(new RegExp(`^${STRANGER_CALLBACK}\\?code=`));
  });
});
