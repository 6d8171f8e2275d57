/**
 * The public API's answers, as the dashboard page (src/dashboard/client) reads them: the types
 * of the zod schemas with which the API validates and documents them. Types only (the lint
 * enforces it): the page's bundle imports this file, and nothing of the server may reach it.
 * An answer whose shape changes fails the page's type check where the page reads it.
 */
import type { z } from 'zod';

import type { AlertStarted as AlertStartedSchema, SandboxAlert as SandboxAlertSchema } from '../alerts/index.js';
import type { ConnectedApp as ConnectedAppSchema } from '../auth/index.js';
import type { ErrorBody } from '../http/schemas.js';
import type { JournalEntry as JournalEntrySchema } from '../journal/index.js';
import type { Device as DeviceSchema, LocationList, Location as LocationSchema } from '../locations/index.js';
import type { DrillOutcomeSchema, ReadinessReportSchema } from '../readiness/index.js';
import type { ReadingsEnvelope, UsageSummary } from '../readings/index.js';
import type { ClockStateBody, Run as RunSchema } from '../scenarios/index.js';
import type { Subscription as SubscriptionSchema } from '../subscriptions/index.js';
import type { DeliveryAttempt as DeliveryAttemptSchema, Delivery as DeliverySchema } from '../webhooks/index.js';

export type ClockState = z.output<typeof ClockStateBody>;
export type Device = z.output<typeof DeviceSchema>;
export type Location = z.output<typeof LocationSchema>;
/** The paging keys of every list answer. */
export type Paged = Omit<z.output<typeof LocationList>, 'locations'>;
export type SandboxAlert = z.output<typeof SandboxAlertSchema>;
export type AlertStarted = z.output<typeof AlertStartedSchema>;
export type Reading = z.output<typeof ReadingsEnvelope>['readings'][number];
export type Summary = z.output<typeof UsageSummary>;
export type Subscription = z.output<typeof SubscriptionSchema>;
export type DeliveryAttempt = z.output<typeof DeliveryAttemptSchema>;
export type Delivery = z.output<typeof DeliverySchema>;
export type Run = z.output<typeof RunSchema>;
export type JournalEntry = z.output<typeof JournalEntrySchema>;
export type ReadinessReport = z.output<typeof ReadinessReportSchema>;
export type ReadinessCheck = ReadinessReport['checks'][number];
export type DrillOutcome = z.output<typeof DrillOutcomeSchema>;
export type ConnectedApp = z.output<typeof ConnectedAppSchema>;
/** An error answer of /v1 and /sandbox, read with care: a proxy in between may answer otherwise. */
export type ErrorAnswer = Partial<z.output<typeof ErrorBody>>;
