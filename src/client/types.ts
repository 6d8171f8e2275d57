/**
 * The answers and request bodies of the client (`water-sandbox/client`): the types of the zod
 * schemas with which the sandbox validates and documents them in /openapi.json. Types only (the
 * lint enforces it): nothing of the server reaches the client's bundle. The package's build
 * writes this file's declarations with every type spelled out (src/tools/package-files.ts), so an
 * installed package needs no zod.
 */
import type { z } from 'zod';

import type { AccountCreate, CreatedAccount as CreatedAccountSchema } from '../accounts/operations.js';
import type {
  AlertEnded as AlertEndedSchema,
  AlertNotification as AlertNotificationSchema,
} from '../alerts/schemas.js';
import type { FaultCreate, FaultList as FaultListSchema, FaultView, RateLimitSet } from '../faults/operations.js';
import type { healthOp } from '../openapi/registry.js';
import type { DRILLS } from '../readiness/drills.js';
import type { RelayRequest } from '../relay/messages.js';
import type { Relay as RelaySchema } from '../relay/operations.js';
import type { ScenarioSummary as ScenarioSummarySchema } from '../scenarios/operations.js';
import type { AlertType as StoreAlertType } from '../store/data.js';
import type { DeliveryListQuery } from '../webhooks/operations.js';

/** A webhook on its way through a relay to the local URL. */
export type { RelayRequest };
export type {
  AlertStarted,
  ClockState,
  Delivery,
  DeliveryAttempt,
  Device,
  DrillOutcome,
  ErrorAnswer,
  Location,
  ReadinessCheck,
  ReadinessReport,
  Run,
  SandboxAlert,
  Subscription,
} from '../dashboard/api-types.js';

/** A fresh account with its API key, a login user and its locations (POST /sandbox/accounts). */
export type CreatedAccount = z.output<typeof CreatedAccountSchema>;
/** What POST /sandbox/accounts takes: the household seed, how many locations, a name. */
export type AccountOptions = z.output<typeof AccountCreate>;
export type AlertType = StoreAlertType;
export type AlertEnded = z.output<typeof AlertEndedSchema>;
/** The webhook body of an alert notification, as production sends it. */
export type AlertNotification = z.output<typeof AlertNotificationSchema>;
/** A fault to queue, or a rate limit on its own (POST /sandbox/faults). */
export type FaultSpec = z.output<typeof FaultCreate>;
export type Fault = z.output<typeof FaultView>;
export type RateLimitState = z.output<typeof RateLimitSet>;
export type FaultList = z.output<typeof FaultListSchema>;
export type DrillName = (typeof DRILLS)[number];
/** The filters of GET /sandbox/deliveries (without the paging). */
export type DeliveryFilter = Omit<z.output<typeof DeliveryListQuery>, 'page' | 'perPage'>;
export type Relay = z.output<typeof RelaySchema>;
export type ScenarioSummary = z.output<typeof ScenarioSummarySchema>;
/** GET /healthz when the sandbox is ready. */
export type Health = z.output<(typeof healthOp)['responses'][200]['schema']>;
