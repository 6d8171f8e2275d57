import { allowApp, askForCode, call, registerApp, useStrangersScene } from '../helpers/allowed-app.js';
import { docOf } from '../helpers/build-test-app.js';
import { DEMO_API_KEY } from '../helpers/demo.js';

// MAX_CONNECTED_APPS on a hosted sandbox over real HTTP: an account's users allow at most so many
// applications of other accounts; the next Allow is refused with a page naming the setting.

const scene = useStrangersScene({ MAX_CONNECTED_APPS: '1' });

it('bounds the connected apps: the next Allow is a 409 page naming MAX_CONNECTED_APPS, and issues no code', async () => {
  const { t, url, app, browser } = scene;
  await allowApp(browser, app);
  const second = await registerApp(url, { applicationName: 'Second App' });
  const page = await askForCode(browser, second);
  const codes = (await docOf(t)).authorizationCodes.length;
  const refused = await browser.submit(page, '/login/consent', { decision: 'allow' });
  expect(refused.status).toBe(409);
  expect(refused.location).toBeNull();
  expect(refused.text).toContain('MAX_CONNECTED_APPS=1');
  expect((await docOf(t)).authorizationCodes).toHaveLength(codes);
  expect((await call(url, 'GET', '/sandbox/connected-apps', DEMO_API_KEY)).body?.['connectedApps']).toHaveLength(1);
  // Revoking the first makes room: the same page of the second now answers.
  await call(url, 'DELETE', `/sandbox/connected-apps/${encodeURIComponent(app.clientId)}`, DEMO_API_KEY);
  expect((await browser.submit(page, '/login/consent', { decision: 'allow' })).status).toBe(302);
});
