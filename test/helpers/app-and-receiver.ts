import { buildTestApp, type TestApp } from './build-test-app.js';
import { live } from './live.js';
import { WebhookReceiver } from './webhook-receiver.js';

type BuildOptions = Parameters<typeof buildTestApp>[0];

/**
 * The set-up of a test about what the sandbox sends: for each test of the file (or describe) that
 * calls it, a fresh test app (buildTestApp with `options`) and a webhook receiver on loopback,
 * made before the test. After it, the app's deliveries finish and the receiver closes. Call it
 * where `beforeEach` may be called; use `t` and `receiver` inside the tests (see live.ts). A test
 * that needs other settings calls `rebuildApp` with them: `t` is that app from then on.
 */
export function useAppAndReceiver(options?: BuildOptions): { t: TestApp; receiver: WebhookReceiver; rebuildApp: (options?: BuildOptions) => Promise<void> } {
  let app: TestApp | null = null;
  let receiver: WebhookReceiver | null = null;
  beforeEach(async () => {
    app = await buildTestApp(options);
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    const [finishing, closing] = [app, receiver];
    [app, receiver] = [null, null];
    await finishing?.deps.dispatcher.idle();
    await closing?.close();
  });
  const rebuildApp = async (other?: BuildOptions): Promise<void> => {
    const replaced = app;
    app = await buildTestApp(other);
    await replaced?.deps.dispatcher.idle();
  };
  return { t: live('the test app', () => app), receiver: live('the webhook receiver', () => receiver), rebuildApp };
}
