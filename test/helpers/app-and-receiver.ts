import { buildTestApp, type TestApp } from './build-test-app.js';
import { live } from './live.js';
import { WebhookReceiver } from './webhook-receiver.js';

type BuildOptions = Parameters<typeof buildTestApp>[0];

/**
 * Test apps and webhook receivers that a test makes as it needs them. After each test of the file
 * (or describe) that calls this, the apps' deliveries finish and then the receivers close.
 */
export function useAppsAndReceivers(): {
  buildApp: (options?: BuildOptions) => Promise<TestApp>;
  startReceiver: () => Promise<WebhookReceiver>;
} {
  const apps: TestApp[] = [];
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
    for (const r of receivers.splice(0)) await r.close();
  });
  return {
    buildApp: async (options) => {
      const t = await buildTestApp(options);
      apps.push(t);
      return t;
    },
    startReceiver: async () => {
      const r = await WebhookReceiver.start();
      receivers.push(r);
      return r;
    },
  };
}

/**
 * The set-up of a test about what the sandbox sends: for each test of the file (or describe) that
 * calls it, a fresh test app (buildTestApp with `options`) and a webhook receiver on loopback,
 * made before the test and cleaned up after it as useAppsAndReceivers does. Call it where
 * `beforeEach` may be called; use `t` and `receiver` inside the tests (see live.ts). A test that
 * needs other settings calls `rebuildApp` with them: `t` is that app from then on.
 */
export function useAppAndReceiver(options?: BuildOptions): {
  t: TestApp;
  receiver: WebhookReceiver;
  rebuildApp: (options?: BuildOptions) => Promise<void>;
} {
  const { buildApp, startReceiver } = useAppsAndReceivers();
  let app: TestApp | null = null;
  let receiver: WebhookReceiver | null = null;
  beforeEach(async () => {
    app = await buildApp(options);
    receiver = await startReceiver();
  });
  afterEach(() => {
    [app, receiver] = [null, null];
  });
  return {
    t: live('the test app', () => app),
    receiver: live('the webhook receiver', () => receiver),
    rebuildApp: async (other) => {
      app = await buildApp(other);
    },
  };
}
