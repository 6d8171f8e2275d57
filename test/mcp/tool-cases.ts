import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { DEMO_LOCATION_ID, DEMO_LOCATIONS } from '../helpers/demo.js';
import { callTool } from '../helpers/mcp.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, unknown>;

/** What the cases learn as they go (ids made by earlier cases), and what they run against. */
export interface CaseState {
  client: () => Client;
  receiver: () => WebhookReceiver;
  /** Moves the sandbox's process clock (a manual clock stands still otherwise). */
  advance: (seconds: number) => void;
  ids: Record<string, string>;
}

/**
 * One tool, called once with good input and once with bad: `good` returns the arguments and
 * checks the answer; `bad` is a call the sandbox refuses, with the status, the error code and
 * the parameter its message names. In order: a case may use what an earlier one made.
 */
export interface ToolCase {
  tool: string;
  good: (s: CaseState) => Promise<void>;
  bad: (s: CaseState) => { args: Json; status: number; error: string; parameter?: string; says: RegExp };
}

/** Calls the case's bad input and expects the tool error it promises: status, code, parameter, message. */
export async function expectRefusal(client: Client, { tool, bad }: ToolCase, s: CaseState): Promise<void> {
  const refusal = bad(s);
  const { isError, json } = await callTool(client, tool, refusal.args);
  expect(isError).toBe(true);
  expect(json).toMatchObject({
    status: refusal.status,
    error: refusal.error,
    ...(refusal.parameter === undefined ? {} : { parameter: refusal.parameter }),
  });
  expect(json['message']).toMatch(refusal.says);
}

const id = (s: CaseState, name: string): string => {
  const value = s.ids[name];
  if (value === undefined) throw new Error(`no ${name} yet: an earlier case did not run`);
  return value;
};

const ok = async (s: CaseState, tool: string, args: Json = {}): Promise<Json> => {
  const { isError, json } = await callTool(s.client(), tool, args);
  if (isError) throw new Error(`${tool} ${JSON.stringify(args)} was refused: ${JSON.stringify(json)}`);
  return json;
};

export const TOOL_CASES: readonly ToolCase[] = [
  {
    tool: 'list_locations',
    good: async (s) => {
      const answer = await ok(s, 'list_locations');
      expect((answer['locations'] as Json[]).map((l) => l['locationId'])).toEqual(
        DEMO_LOCATIONS.map((l) => l.locationId),
      );
    },
    bad: () => ({
      args: { perPage: 500 },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'perPage',
      says: /perPage/,
    }),
  },
  {
    tool: 'get_readings',
    good: async (s) => {
      const answer = await ok(s, 'get_readings', {
        locationId: DEMO_LOCATION_ID,
        startTime: '2026-03-09T00:00:00Z',
        groupBy: 'hour',
        perPage: 10,
      });
      expect(answer).toMatchObject({ page: 1, perPage: 10, units: 'gallons' });
      expect(answer['readings']).toHaveLength(10);
    },
    bad: () => ({
      args: { locationId: DEMO_LOCATION_ID, startTime: 'yesterday' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'startTime',
      says: /startTime/,
    }),
  },
  {
    tool: 'set_home_away',
    good: async (s) => {
      expect(await ok(s, 'set_home_away', { locationId: DEMO_LOCATION_ID, homeAway: 'away' })).toMatchObject({
        locationId: DEMO_LOCATION_ID,
        homeAway: 'away',
      });
      expect((await ok(s, 'set_home_away', { locationId: DEMO_LOCATION_ID, homeAway: 'home' }))['homeAway']).toBe(
        'home',
      );
    },
    bad: () => ({
      args: { locationId: DEMO_LOCATION_ID, homeAway: 'gone' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'homeAway',
      says: /homeAway must be "home" or "away"/,
    }),
  },
  {
    tool: 'create_subscription',
    good: async (s) => {
      const answer = await ok(s, 'create_subscription', { locationId: DEMO_LOCATION_ID, endpoint: s.receiver().url() });
      expect(answer).toMatchObject({ locationId: DEMO_LOCATION_ID, endpoint: s.receiver().url(), status: 'pending' });
      s.ids['subscriptionId'] = answer['subscriptionId'] as string;
    },
    bad: () => ({
      args: { locationId: DEMO_LOCATION_ID, endpoint: 'ftp://example.com/hooks' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'endpoint',
      says: /endpoint/,
    }),
  },
  {
    tool: 'confirm_subscription',
    good: async (s) => {
      // The confirmation message the receiver got (a real HTTP server on loopback).
      const [confirmation] = await s
        .receiver()
        .waitForMatching((r) => typeof (r.body as Json | null)?.['confirmationToken'] === 'string');
      const token = (confirmation!.body as { confirmationToken: string }).confirmationToken;
      const answer = await ok(s, 'confirm_subscription', {
        subscriptionId: id(s, 'subscriptionId'),
        confirmationToken: token,
      });
      expect(answer).toMatchObject({ subscriptionId: id(s, 'subscriptionId'), status: 'confirmed' });
    },
    bad: (s) => ({
      args: { subscriptionId: id(s, 'subscriptionId'), confirmationToken: 'not-the-token' },
      status: 400,
      error: 'invalid_confirmation_token',
      parameter: 'confirmationToken',
      says: /confirmationToken|token/,
    }),
  },
  {
    tool: 'list_subscriptions',
    good: async (s) => {
      const answer = await ok(s, 'list_subscriptions', { locationId: DEMO_LOCATION_ID });
      expect(answer['subscriptions']).toContainEqual(
        expect.objectContaining({ subscriptionId: id(s, 'subscriptionId'), status: 'confirmed' }),
      );
    },
    bad: () => ({ args: { locationId: 'no-such-location' }, status: 404, error: 'not_found', says: /location/i }),
  },
  {
    tool: 'start_alert',
    good: async (s) => {
      const answer = await ok(s, 'start_alert', { locationId: DEMO_LOCATION_ID, type: 'highLeak' });
      expect(answer).toMatchObject({ outcome: 'started', type: 'highLeak', active: true, notifications: 1 });
      s.ids['alertId'] = answer['alertId'] as string;
    },
    bad: () => ({
      args: { locationId: DEMO_LOCATION_ID, type: 'flood' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'type',
      says: /type .*must be one of lowLeak/,
    }),
  },
  {
    tool: 'wait_for_delivery',
    good: async (s) => {
      const answer = await ok(s, 'wait_for_delivery', { kind: 'alert', alertType: 'highLeak', active: true });
      expect(answer).toMatchObject({ matched: true, delivery: { kind: 'alert', state: 'delivered' } });
      const delivery = answer['delivery'] as { deliveryId: string; payload: Json };
      expect(delivery.payload).toMatchObject({
        type: 'highLeak',
        active: true,
        subscriptionId: id(s, 'subscriptionId'),
      });
      s.ids['deliveryId'] = delivery.deliveryId;
    },
    bad: () => ({
      args: { kind: 'alert', state: 'lost' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'state',
      says: /state must be one of pending, delivered, failed, finished/,
    }),
  },
  {
    tool: 'end_alert',
    good: async (s) => {
      const answer = await ok(s, 'end_alert', { locationId: DEMO_LOCATION_ID, alertId: id(s, 'alertId') });
      expect(answer).toMatchObject({ alertId: id(s, 'alertId'), active: false, notifications: 1 });
    },
    bad: () => ({
      args: { locationId: DEMO_LOCATION_ID, alertId: 'no-such-alert' },
      status: 404,
      error: 'not_found',
      says: /alert/,
    }),
  },
  {
    tool: 'list_deliveries',
    good: async (s) => {
      const answer = await ok(s, 'list_deliveries', { kind: 'alert' });
      expect((answer['deliveries'] as Json[]).map((d) => d['deliveryId'])).toContain(id(s, 'deliveryId'));
    },
    bad: () => ({
      args: { state: 'lost' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'state',
      says: /state must be one of/,
    }),
  },
  {
    tool: 'get_delivery',
    good: async (s) => {
      expect(await ok(s, 'get_delivery', { deliveryId: id(s, 'deliveryId') })).toMatchObject({
        deliveryId: id(s, 'deliveryId'),
        target: s.receiver().url(),
        attempts: [expect.objectContaining({ statusCode: 200 })],
      });
    },
    bad: () => ({ args: { deliveryId: 'no-such-delivery' }, status: 404, error: 'not_found', says: /No delivery/ }),
  },
  {
    tool: 'redeliver',
    good: async (s) => {
      const answer = await ok(s, 'redeliver', { deliveryId: id(s, 'deliveryId'), sameDeliveryId: true });
      expect(answer).toMatchObject({ redeliveryOf: id(s, 'deliveryId'), kind: 'alert' });
    },
    bad: (s) => ({
      args: { deliveryId: id(s, 'deliveryId'), sameDeliveryId: 'yes' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'sameDeliveryId',
      says: /sameDeliveryId must be true or false/,
    }),
  },
  {
    tool: 'list_scenarios',
    good: async (s) => {
      const names = ((await ok(s, 'list_scenarios'))['scenarios'] as Json[]).map((x) => x['name']);
      expect(names).toContain('slow-leak-escalates');
    },
    bad: () => ({
      args: { name: 'x' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'name',
      says: /Unknown argument "name": list_scenarios takes no arguments/,
    }),
  },
  {
    tool: 'run_scenario',
    good: async (s) => {
      const answer = await ok(s, 'run_scenario', { name: 'slow-leak-escalates', locationId: DEMO_LOCATION_ID });
      expect(answer).toMatchObject({ scenario: 'slow-leak-escalates', locationId: DEMO_LOCATION_ID, state: 'running' });
      s.ids['runId'] = answer['runId'] as string;
    },
    bad: () => ({
      args: { name: 'no-such-scenario', locationId: DEMO_LOCATION_ID },
      status: 404,
      error: 'not_found',
      says: /No scenario "no-such-scenario"/,
    }),
  },
  {
    tool: 'get_scenario_run',
    good: async (s) => {
      expect(await ok(s, 'get_scenario_run', { runId: id(s, 'runId') })).toMatchObject({
        runId: id(s, 'runId'),
        state: 'running',
      });
    },
    bad: () => ({ args: {}, status: 400, error: 'invalid_parameter', parameter: 'runId', says: /runId is required/ }),
  },
  {
    tool: 'cancel_scenario_run',
    good: async (s) => {
      expect(await ok(s, 'cancel_scenario_run', { runId: id(s, 'runId') })).toMatchObject({
        runId: id(s, 'runId'),
        state: 'cancelled',
      });
    },
    bad: () => ({ args: { runId: 'no-such-run' }, status: 404, error: 'not_found', says: /run/ }),
  },
  {
    tool: 'get_clock',
    good: async (s) => {
      expect(await ok(s, 'get_clock')).toEqual({
        now: expect.any(String),
        offsetSeconds: expect.any(Number),
        frozen: expect.any(Boolean),
      });
    },
    bad: () => ({
      args: { frozen: true },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'frozen',
      says: /Unknown argument "frozen"/,
    }),
  },
  {
    tool: 'move_clock',
    good: async (s) => {
      const before = Date.parse((await ok(s, 'get_clock'))['now'] as string);
      const after = await ok(s, 'move_clock', { advanceSeconds: 3600 });
      expect(Date.parse(after['now'] as string) - before).toBeGreaterThanOrEqual(3_600_000);
    },
    bad: () => ({
      args: { advanceSeconds: -5 },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'advanceSeconds',
      says: /advanceSeconds/,
    }),
  },
  {
    tool: 'add_fault',
    good: async (s) => {
      expect(await ok(s, 'add_fault', { method: 'GET', path: '/v1/locations', status: 503, times: 2 })).toMatchObject({
        method: 'GET',
        path: '/v1/locations',
        status: 503,
        times: 2,
      });
    },
    bad: () => ({
      args: { status: 200 },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'status',
      says: /status/,
    }),
  },
  {
    tool: 'clear_faults',
    good: async (s) => {
      expect((await ok(s, 'clear_faults'))['removed']).toBeGreaterThanOrEqual(1);
    },
    bad: () => ({
      args: { all: true },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'all',
      says: /Unknown argument "all": clear_faults takes no arguments/,
    }),
  },
  {
    tool: 'run_drill',
    good: async (s) => {
      expect(await ok(s, 'run_drill', { drill: 'rate-limit' })).toMatchObject({ drill: 'rate-limit' });
    },
    bad: () => ({
      args: { drill: 'earthquake' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'drill',
      says: /drill/,
    }),
  },
  {
    tool: 'list_requests',
    good: async (s) => {
      const answer = await ok(s, 'list_requests', { errorsOnly: true });
      expect(Array.isArray(answer['requests'])).toBe(true);
      for (const entry of answer['requests'] as Json[]) expect(entry['status']).toBeGreaterThanOrEqual(400);
    },
    bad: () => ({
      args: { status: 'teapot' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'status',
      says: /status must be an HTTP status code/,
    }),
  },
  {
    tool: 'get_readiness',
    good: async (s) => {
      const answer = await ok(s, 'get_readiness');
      expect(answer).toMatchObject({ ready: false, checks: expect.any(Array) });
      expect(answer['checks']).toContainEqual(
        expect.objectContaining({ id: 'webhooks.alert-answer', status: 'passed' }),
      );
    },
    bad: () => ({
      args: { verbose: true },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'verbose',
      says: /Unknown argument "verbose"/,
    }),
  },
  {
    tool: 'explain_readiness_check',
    good: async (s) => {
      const answer = await ok(s, 'explain_readiness_check', { checkId: 'webhooks.alert-answer' });
      expect(answer).toMatchObject({
        id: 'webhooks.alert-answer',
        required: true,
        status: 'passed',
        docs: 'docs/readiness.md#webhooksalert-answer',
      });
      expect(answer['guide']).toMatch(/^### webhooks\.alert-answer\n\n\*Required\.\*/);
    },
    bad: () => ({
      args: { checkId: 'webhooks.fast' },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'checkId',
      says: /checkId must be one of .*webhooks\.alert-answer/,
    }),
  },
  {
    tool: 'reset_readiness',
    good: async (s) => {
      // Evidence from before the new window's instant no longer counts.
      s.advance(1);
      const answer = await ok(s, 'reset_readiness');
      expect(answer['checks']).toContainEqual(
        expect.objectContaining({ id: 'webhooks.alert-answer', status: 'pending' }),
      );
    },
    bad: () => ({
      args: { force: true },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'force',
      says: /Unknown argument "force"/,
    }),
  },
  {
    tool: 'delete_subscription',
    good: async (s) => {
      expect(await ok(s, 'delete_subscription', { subscriptionId: id(s, 'subscriptionId') })).toMatchObject({
        subscriptionId: id(s, 'subscriptionId'),
      });
    },
    bad: (s) => ({
      args: { subscriptionId: id(s, 'subscriptionId') },
      status: 404,
      error: 'not_found',
      says: /subscription/,
    }),
  },
  {
    tool: 'reset_account',
    good: async (s) => {
      const answer = await ok(s, 'reset_account');
      expect((answer['locations'] as Json[]).map((l) => l['locationId'])).toEqual(
        DEMO_LOCATIONS.map((l) => l.locationId),
      );
    },
    bad: () => ({
      args: { everything: true },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'everything',
      says: /Unknown argument/,
    }),
  },
  {
    tool: 'create_account',
    good: async (s) => {
      const answer = await ok(s, 'create_account', { locations: 1, name: 'Agent test household' });
      expect(answer).toMatchObject({
        name: 'Agent test household',
        apiKey: expect.any(String),
        locations: [expect.any(Object)],
      });
    },
    bad: () => ({
      args: { locations: 99 },
      status: 400,
      error: 'invalid_parameter',
      parameter: 'locations',
      says: /locations/,
    }),
  },
];
