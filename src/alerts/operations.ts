import { operationsTagged } from '../http/operation.js';
import { NO_SUCH_LOCATION, NO_BODY_TAKEN } from '../http/schemas.js';
import {
  ALERT_START_EXAMPLE,
  AlertEndBody,
  AlertEnded,
  AlertListQuery,
  AlertStart,
  AlertStarted,
  SandboxAlert,
  SandboxAlertList,
} from './schemas.js';

const operation = operationsTagged('Sandbox: alerts', 'account');

export const startAlertOp = operation('startAlert', 'POST /sandbox/locations/{locationId}/alerts', {
  summary: 'Start an alert now',
  description:
    "Raises the alert at the location as a monitor would, with production's rules: one leak alert at a time (a highLeak escalates an active lowLeak; " +
    'anything else next to an active leak is ignored), the away-leak rule in away mode, one alert per type otherwise. Every confirmed subscription of ' +
    'the location receives the alert-start notification; a leak adds its flow to the readings while it lasts.',
  body: { schema: AlertStart, required: true, example: ALERT_START_EXAMPLE },
  responses: {
    201: { description: 'The alert started (or escalated).', schema: AlertStarted },
    200: {
      description: 'Ignored: an alert in force already covers it; the answer is that alert.',
      schema: AlertStarted,
    },
  },
  errors: {
    400: 'invalid_parameter: the body does not fit the type (peakValue range, peakStatus, deviceId not of this location).',
    404: NO_SUCH_LOCATION,
    409: 'device_disconnected: the device is disconnected (a scenario disconnected it).',
  },
});

export const listAlertsOp = operation('listAlerts', 'GET /sandbox/locations/{locationId}/alerts', {
  summary: "The location's alerts, active and ended",
  description:
    "Newest first, with the sandbox's bookkeeping (the alertId to end one with). The history keeps the newest 100 ended alerts per location.",
  query: AlertListQuery,
  responses: { 200: { description: 'A page of alerts.', schema: SandboxAlertList } },
  errors: {
    400: 'invalid_parameter: active, page or perPage is not valid.',
    404: NO_SUCH_LOCATION,
  },
});

export const getAlertOp = operation('getAlert', 'GET /sandbox/locations/{locationId}/alerts/{alertId}', {
  summary: 'One alert',
  responses: { 200: { description: 'The alert.', schema: SandboxAlert } },
  errors: { 404: 'not_found: no such location, or no such alert at it.' },
});

export const endAlertOp = operation('endAlert', 'POST /sandbox/locations/{locationId}/alerts/{alertId}/end', {
  summary: 'End an alert now',
  description:
    'Confirmed subscriptions of the location receive the alert-end notification (active false, stopTime set). Ending a high leak that escalated a low leak resumes the low one.',
  body: { schema: AlertEndBody, required: false, example: {} },
  responses: { 200: { description: 'The ended alert, and the low leak that resumed, if any.', schema: AlertEnded } },
  errors: {
    400: NO_BODY_TAKEN,
    404: 'not_found: no such location, or no such alert at it.',
    409: 'alert_already_ended: the alert has ended already.',
  },
});

export const alertsOperations = [startAlertOp, listAlertsOp, getAlertOp, endAlertOp];
