import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { buildTestApp, docOf, deliveriesIn, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_API_KEY, OTHER_ACCOUNT_ID, OTHER_API_KEY, OTHER_LOCATION_ID, OTHER_LOCATIONS } from '../helpers/demo.js';
import { callTool, connectMcp, listenOnLoopback } from '../helpers/mcp.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// One account's key never reaches another account through any tool: the demo account's agent,
// given every id of the other account, gets a 404 (or its own data), never a byte of the other's,
// and the other account is exactly as it was, its receiver told nothing more.

type Json = Record<string, unknown>;

let t: TestApp;
let served: Awaited<ReturnType<typeof listenOnLoopback>>;
let receiver: WebhookReceiver;
let mine: Client;
/** The other account's ids and secrets, made through its own key. */
const other: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  served = await listenOnLoopback(t.app);
  receiver = await WebhookReceiver.start();
  const theirs = await connectMcp(served.url, OTHER_API_KEY);
  const ok = async (tool: string, args: Json = {}): Promise<Json> => {
    const { isError, json } = await callTool(theirs, tool, args);
    if (isError) throw new Error(`${tool}: ${JSON.stringify(json)}`);
    return json;
  };
  const subscription = await ok('create_subscription', { locationId: OTHER_LOCATION_ID, endpoint: receiver.url() });
  other['subscriptionId'] = subscription['subscriptionId'] as string;
  const [confirmation] = await receiver.waitForMatching(
    (r) => (r.body as Json | null)?.['confirmationToken'] !== undefined,
  );
  other['confirmationToken'] = (confirmation!.body as { confirmationToken: string }).confirmationToken;
  await ok('confirm_subscription', {
    subscriptionId: other['subscriptionId'],
    confirmationToken: other['confirmationToken'],
  });
  other['alertId'] = (await ok('start_alert', { locationId: OTHER_LOCATION_ID, type: 'lowLeak' }))['alertId'] as string;
  const delivered = await ok('wait_for_delivery', { kind: 'alert' });
  other['deliveryId'] = (delivered['delivery'] as Json)['deliveryId'] as string;
  other['runId'] = (await ok('run_scenario', { name: 'slow-leak-escalates', locationId: OTHER_LOCATION_ID }))[
    'runId'
  ] as string;
  await ok('add_fault', { status: 503, times: 5 });
  await ok('move_clock', { advanceSeconds: 60 });
  await theirs.close();
  await t.deps.dispatcher.idle();
  mine = await connectMcp(served.url, DEMO_API_KEY);
}, 30_000);

afterAll(async () => {
  await (mine as Client | undefined)?.close();
  await t.deps.dispatcher.idle();
  await receiver.close();
  await served.close();
});

/** Every trace of the other account an answer could carry. */
const otherTraces = (): string[] => [
  OTHER_ACCOUNT_ID,
  OTHER_API_KEY,
  ...OTHER_LOCATIONS.map((l) => l.locationId),
  other['subscriptionId']!,
  other['confirmationToken']!,
  other['alertId']!,
  other['deliveryId']!,
  other['runId']!,
  receiver.url(),
];

/** What the other account is, as its own document and log say: it must not change. */
async function otherAccountState(): Promise<unknown> {
  const doc = await docOf(t, OTHER_ACCOUNT_ID);
  return {
    locations: doc.locations.map((l) => [l.locationId, l.homeAway]),
    subscriptions: doc.subscriptions.map((s) => [s.subscriptionId, s.status]),
    alerts: doc.alerts.map((a) => [a.alertId, a.active]),
    runs: doc.runs.map((r) => [r.runId, r.state]),
    faults: doc.faults.length,
    clock: doc.clock,
    deliveries: (await deliveriesIn(t, OTHER_ACCOUNT_ID)).map((d) => [d.deliveryId, d.state, d.attempts.length]),
  };
}

/** Each tool, called by the demo account with the other account's ids where it takes an id: `refused` when it must be a 404. */
const CASES: { tool: string; args: () => Json; refused?: true }[] = [
  { tool: 'list_locations', args: () => ({}) },
  {
    tool: 'get_readings',
    args: () => ({ locationId: OTHER_LOCATION_ID, startTime: '2026-03-09T00:00:00Z' }),
    refused: true,
  },
  { tool: 'set_home_away', args: () => ({ locationId: OTHER_LOCATION_ID, homeAway: 'away' }), refused: true },
  {
    tool: 'create_subscription',
    args: () => ({ locationId: OTHER_LOCATION_ID, endpoint: 'http://127.0.0.1:9/hooks' }),
    refused: true,
  },
  {
    tool: 'confirm_subscription',
    args: () => ({ subscriptionId: other['subscriptionId'], confirmationToken: other['confirmationToken'] }),
    refused: true,
  },
  { tool: 'list_subscriptions', args: () => ({}) },
  { tool: 'list_subscriptions', args: () => ({ locationId: OTHER_LOCATION_ID }), refused: true },
  { tool: 'delete_subscription', args: () => ({ subscriptionId: other['subscriptionId'] }), refused: true },
  { tool: 'start_alert', args: () => ({ locationId: OTHER_LOCATION_ID, type: 'highLeak' }), refused: true },
  { tool: 'end_alert', args: () => ({ locationId: OTHER_LOCATION_ID, alertId: other['alertId'] }), refused: true },
  { tool: 'list_scenarios', args: () => ({}) },
  { tool: 'run_scenario', args: () => ({ name: 'cold-snap', locationId: OTHER_LOCATION_ID }), refused: true },
  { tool: 'get_scenario_run', args: () => ({ runId: other['runId'] }), refused: true },
  { tool: 'cancel_scenario_run', args: () => ({ runId: other['runId'] }), refused: true },
  { tool: 'get_clock', args: () => ({}) },
  { tool: 'move_clock', args: () => ({ advanceSeconds: 600 }) },
  { tool: 'add_fault', args: () => ({ status: 500 }) },
  { tool: 'clear_faults', args: () => ({}) },
  { tool: 'run_drill', args: () => ({ drill: 'rate-limit' }) },
  { tool: 'list_deliveries', args: () => ({}) },
  { tool: 'list_deliveries', args: () => ({ subscriptionId: other['subscriptionId'] }) },
  { tool: 'get_delivery', args: () => ({ deliveryId: other['deliveryId'] }), refused: true },
  { tool: 'redeliver', args: () => ({ deliveryId: other['deliveryId'], sameDeliveryId: true }), refused: true },
  { tool: 'wait_for_delivery', args: () => ({ deliveryId: other['deliveryId'], timeoutSeconds: 0.2 }) },
  { tool: 'list_requests', args: () => ({}) },
  { tool: 'get_readiness', args: () => ({}) },
  { tool: 'explain_readiness_check', args: () => ({ checkId: 'webhooks.alert-answer' }) },
  { tool: 'reset_readiness', args: () => ({}) },
  { tool: 'reset_account', args: () => ({}) },
  { tool: 'create_account', args: () => ({ locations: 1 }) },
];

it('covers every tool', async () => {
  const { tools } = await mine.listTools();
  expect([...new Set(CASES.map((c) => c.tool))].sort()).toEqual(tools.map((tool) => tool.name).sort());
});

describe.each(CASES)('$tool with the other account in its arguments', ({ tool, args, refused }) => {
  it(
    refused ? 'is a 404: the other account does not exist for this key' : "answers the caller's own data only",
    async () => {
      const before = await otherAccountState();
      const heard = receiver.received.length;
      const given = args();
      const { isError, json } = await callTool(mine, tool, given);
      if (refused) expect(json).toMatchObject({ status: 404, error: 'not_found' });
      else expect(isError).toBe(false);
      // A refusal may repeat the id it was given; nothing else of the other account may show.
      const text = JSON.stringify(json);
      const asked = Object.values(given);
      for (const trace of otherTraces().filter((x) => !asked.includes(x)))
        expect([tool, text.includes(trace) ? trace : null]).toEqual([tool, null]);
      await t.deps.dispatcher.idle();
      expect(await otherAccountState()).toEqual(before);
      expect(receiver.received.length).toBe(heard);
    },
  );
});

it('the resources show the caller only: its readiness report and its delivery log', async () => {
  for (const uri of ['water-sandbox://readiness', 'water-sandbox://deliveries']) {
    const { contents } = await mine.readResource({ uri });
    const text = (contents[0] as { text: string }).text;
    for (const trace of otherTraces()) expect([uri, text.includes(trace) ? trace : null]).toEqual([uri, null]);
  }
});
