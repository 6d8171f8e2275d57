import type { SandboxHttp } from './http.js';
import { lookAtReadiness, settle, stoppedWaiting } from './readiness-settle.js';
import { blockingChecks, checkLines } from './readiness-text.js';
import { RelayForwarder, type RelayListener } from './relay.js';
import type {
  AlertEnded,
  AlertStarted,
  AlertType,
  ClockState,
  CreatedAccount,
  Delivery,
  DeliveryFilter,
  DrillName,
  DrillOutcome,
  Fault,
  FaultList,
  FaultSpec,
  Location,
  RateLimitState,
  ReadinessCheck,
  ReadinessReport,
  Run,
  ScenarioSummary,
  Subscription,
} from './types.js';
import { waitUntil, type WaitOptions } from './wait.js';

const seg = encodeURIComponent;

/** The newest deliveries `deliveries.waitFor` looks at on each look (the sandbox's largest page). */
const PAGE = 100;

/** `assertReady` found required checks failed, or still pending when it stopped waiting. */
export class ReadinessError extends Error {
  constructor(
    /** The report it judged. */
    readonly report: ReadinessReport,
    /** The required checks (less those excepted) that are failed or pending. */
    readonly checks: ReadinessCheck[],
    /** How waiting ended (`waitSeconds`), when it did not end with every check settled. */
    readonly waiting: string | null = null,
  ) {
    const lines = checks.flatMap(checkLines);
    super(
      `the integration is not ready: ${checks.length} required check${checks.length === 1 ? '' : 's'} failed or pending (account ${report.accountId}, since ${report.since})${waiting === null ? '' : `; ${waiting}`}\n${lines.join('\n')}`,
    );
    this.name = 'ReadinessError';
  }
}

export interface AssertReadyOptions {
  /** Checks not to hold against the integration (a test that does not use OAuth: `['oauth.token-exchange', 'oauth.refresh']`). */
  except?: readonly ReadinessCheck['id'][];
  /**
   * While a required check is pending and something in flight could settle it (a delivery not yet
   * sent, an open walk through pages, a drill's answer the client has yet to follow), ask again for
   * at most this long (default 0: judge the first report). With nothing in flight it stops early.
   */
  waitSeconds?: number;
  /** How often to ask while waiting (default 500 ms). */
  intervalMs?: number;
}

/** One delivery page's filters as a query string. */
function deliveryQuery(filter: DeliveryFilter, page: number): string {
  const query = new URLSearchParams({ page: String(page), perPage: String(PAGE) });
  for (const [name, value] of Object.entries(filter)) if (value !== undefined) query.set(name, value);
  return query.toString();
}

/** Pages of a list answer. */
interface Paged {
  page: number;
  pageCount: number;
}

/**
 * What a test does with one account of a sandbox, through its API key: alerts, the account's
 * clock, faults and drills, subscriptions, the delivery log, scenarios, readiness, and relays
 * to a receiver on this machine. Every method is one or a few HTTP calls (see /openapi.json);
 * a refusal throws a SandboxError with the sandbox's own message.
 */
export class AccountClient {
  constructor(
    /** Calls with this account's API key. */
    readonly http: SandboxHttp,
  ) {}

  /** Alerts of a location: start one now, end one. */
  readonly alerts = {
    /** Starts an alert at the location now; its notifications go to the location's confirmed subscriptions. */
    start: async (
      locationId: string,
      type: AlertType,
      options: { deviceId?: string; peakValue?: number; peakStatus?: 'too_high' | 'too_low' | null } = {},
    ): Promise<AlertStarted> =>
      (await this.http.call<AlertStarted>('POST', `/sandbox/locations/${seg(locationId)}/alerts`, { type, ...options }))
        .body,
    /** Ends an alert (its end notification follows). */
    end: async (locationId: string, alertId: string): Promise<AlertEnded> =>
      (await this.http.call<AlertEnded>('POST', `/sandbox/locations/${seg(locationId)}/alerts/${seg(alertId)}/end`))
        .body,
  };

  /** The account's virtual clock, which drives readings, expiries, retries and scenarios. */
  readonly clock = {
    now: async (): Promise<ClockState> => (await this.http.call<ClockState>('GET', '/sandbox/clock')).body,
    /** Moves forward, doing on the way (at their own instants) the retries and scenario steps that fall due. */
    advance: async (seconds: number, options: { frozen?: boolean } = {}): Promise<ClockState> =>
      (await this.http.call<ClockState>('POST', '/sandbox/clock', { advanceSeconds: seconds, ...options })).body,
    /** Goes to an instant (ISO 8601 with a zone, epoch seconds, or a Date). */
    set: async (instant: string | number | Date, options: { frozen?: boolean } = {}): Promise<ClockState> =>
      (
        await this.http.call<ClockState>('POST', '/sandbox/clock', {
          now: instant instanceof Date ? instant.toISOString() : instant,
          ...options,
        })
      ).body,
    /** Back to the wall clock: running, no offset. */
    real: async (): Promise<ClockState> =>
      (await this.http.call<ClockState>('POST', '/sandbox/clock', { realTime: true })).body,
  };

  /** Faults of the account's /v1 requests: errors, delays, a rate limit. */
  readonly faults = {
    /** Queues a fault (`{ status: 503, times: 2 }`), or sets a rate limit (`{ rateLimit: { requests: 10, perSeconds: 60 } }`). */
    add: async (spec: FaultSpec): Promise<Fault | RateLimitState> =>
      (await this.http.call<Fault | RateLimitState>('POST', '/sandbox/faults', spec)).body,
    list: async (): Promise<FaultList> => (await this.http.call<FaultList>('GET', '/sandbox/faults')).body,
    /** Removes every fault and the rate limit; answers how many were removed. */
    clear: async (): Promise<number> =>
      (await this.http.call<{ removed: number }>('DELETE', '/sandbox/faults')).body.removed,
  };

  /** Readiness drills: the rare cases an integration must meet. */
  readonly drills = {
    run: async (drill: DrillName): Promise<DrillOutcome> =>
      (await this.http.call<DrillOutcome>('POST', '/sandbox/readiness/drills', { drill })).body,
  };

  /** Webhook subscriptions of the account's locations (the production API, /v1). */
  readonly subscriptions = {
    /** Subscribes the endpoint to the location's alerts; it is `pending` until the receiver confirms it with the token the sandbox sends it. */
    create: async (locationId: string, endpoint: string): Promise<Subscription> =>
      (await this.http.call<Subscription>('POST', `/v1/locations/${seg(locationId)}/subscriptions`, { endpoint })).body,
    /** Confirms it with the token of the confirmation message its endpoint received (the receiver's job; a test may do it). */
    confirm: async (subscriptionId: string, confirmationToken: string): Promise<Subscription> =>
      (
        await this.http.call<Subscription>(
          'GET',
          `/v1/subscriptions/${seg(subscriptionId)}/confirm?confirmationToken=${seg(confirmationToken)}`,
        )
      ).body,
    get: async (subscriptionId: string): Promise<Subscription> =>
      (await this.http.call<Subscription>('GET', `/v1/subscriptions/${seg(subscriptionId)}`)).body,
    delete: async (subscriptionId: string): Promise<void> => {
      await this.http.call('DELETE', `/v1/subscriptions/${seg(subscriptionId)}`);
    },
  };

  /** The delivery log: every webhook the sandbox sent for the account, with each attempt and its answer. */
  readonly deliveries = {
    /** Every delivery the log keeps that matches the filter, newest first. */
    list: async (filter: DeliveryFilter = {}): Promise<Delivery[]> => {
      const deliveries: Delivery[] = [];
      for (let page = 1; ; page++) {
        const { body } = await this.http.call<Paged & { deliveries: Delivery[] }>(
          'GET',
          `/sandbox/deliveries?${deliveryQuery(filter, page)}`,
        );
        deliveries.push(...body.deliveries);
        if (page >= body.pageCount) return deliveries;
      }
    },
    get: async (deliveryId: string): Promise<Delivery> =>
      (await this.http.call<Delivery>('GET', `/sandbox/deliveries/${seg(deliveryId)}`)).body,
    /** Sends a delivery again; with `sameDeliveryId` as a duplicate of the first. */
    redeliver: async (deliveryId: string, options: { sameDeliveryId?: boolean } = {}): Promise<Delivery> =>
      (await this.http.call<Delivery>('POST', `/sandbox/deliveries/${seg(deliveryId)}/redeliver`, options)).body,
    /**
     * The newest delivery that matches the filter and the predicate, as soon as there is one:
     * the log is read every `intervalMs` (default 100) until `timeoutMs` (default 10 s), then
     * this throws, saying what the log held. Only the newest 100 deliveries matching the filter
     * are looked at each time, so filter by kind or location when the log is long.
     */
    waitFor: async (
      predicate: (delivery: Delivery) => boolean = () => true,
      options: WaitOptions & { filter?: DeliveryFilter } = {},
    ): Promise<Delivery> => {
      const { filter = {}, ...wait } = options;
      let seen: Delivery[] = [];
      return waitUntil(
        async () => {
          seen = (
            await this.http.call<{ deliveries: Delivery[] }>('GET', `/sandbox/deliveries?${deliveryQuery(filter, 1)}`)
          ).body.deliveries;
          return seen.find(predicate) ?? null;
        },
        wait,
        () =>
          `no delivery matching ${JSON.stringify(filter)} and the predicate; the log held ${seen.length}: ${
            seen
              .slice(0, 5)
              .map((d) => `${d.kind} ${d.state} to ${d.target}`)
              .join('; ') || 'none'
          }`,
      );
    },
  };

  /** Scenarios: scripted alert timelines played on the account clock. */
  readonly scenarios = {
    list: async (): Promise<ScenarioSummary[]> =>
      (await this.http.call<{ scenarios: ScenarioSummary[] }>('GET', '/sandbox/scenarios')).body.scenarios,
    /** Starts a run at the location; it plays on the account clock (in real time unless the clock is moved). */
    start: async (name: string, locationId: string): Promise<Run> =>
      (await this.http.call<Run>('POST', `/sandbox/scenarios/${seg(name)}/runs`, { locationId })).body,
    /**
     * Plays a whole run now: starts it and moves the account clock past its last step, each step
     * (and each retry that falls due) done at its own instant. Answers the finished run; the clock stays moved.
     */
    play: async (name: string, locationId: string): Promise<Run> => {
      const run = await this.scenarios.start(name, locationId);
      if (run.nextStepAt !== null) {
        const { body: scenario } = await this.http.call<ScenarioSummary>('GET', `/sandbox/scenarios/${seg(name)}`);
        const elapsed = (Date.parse((await this.clock.now()).now) - Date.parse(run.startedAt)) / 1000;
        // A millisecond past the last step, so that step is due.
        await this.clock.advance(Math.max(scenario.durationSeconds - elapsed, 0) + 0.001);
      }
      return (await this.http.call<Run>('GET', `/sandbox/runs/${seg(run.runId)}`)).body;
    },
    cancel: async (runId: string): Promise<Run> =>
      (await this.http.call<Run>('POST', `/sandbox/runs/${seg(runId)}/cancel`)).body,
  };

  /** Integration readiness: the sandbox's verdict on the integration, from its traffic. */
  readonly readiness = {
    report: async (): Promise<ReadinessReport> =>
      (await this.http.call<ReadinessReport>('GET', '/sandbox/readiness')).body,
    /** A new readiness window: earlier evidence no longer counts. */
    reset: async (): Promise<ReadinessReport> =>
      (await this.http.call<ReadinessReport>('POST', '/sandbox/readiness/reset')).body,
    /**
     * Resolves with the report when every required check (less `except`) passed or is not
     * applicable; otherwise throws a ReadinessError listing each failed or pending one with its
     * evidence and fix, as `water-sandbox readiness` prints them. With `waitSeconds`, asks again
     * while a required check is pending (a delivery still being retried, say), at most that long.
     */
    assertReady: async (options: AssertReadyOptions = {}): Promise<ReadinessReport> => {
      const except = new Set<string>(options.except ?? []);
      const waitMs = (options.waitSeconds ?? 0) * 1000;
      const waited = await settle((waitedMs) => lookAtReadiness(this.http, waitedMs, except), {
        waitMs,
        pollMs: options.intervalMs ?? 500,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      });
      const { report } = waited.look;
      const blocking = blockingChecks(report).filter((c) => !except.has(c.id));
      if (blocking.length > 0) throw new ReadinessError(report, blocking, stoppedWaiting(waited, waitMs));
      return report;
    },
  };

  /** Relays: the sandbox's webhooks brought to a URL on this machine, as `water-sandbox listen` does. */
  readonly relays = {
    /**
     * Opens a relay of the account (named `name`, `default` when absent; a new endpoint each
     * time, which only this forwarder can hold) and holds it: every webhook sent to its
     * `endpoint` is forwarded to `forwardTo`, and the local answer is the delivery's answer.
     * Resolves once connected; `close()` it when done.
     */
    forward: async (forwardTo: string, options: { name?: string } & RelayListener = {}): Promise<RelayForwarder> => {
      const forwarder = await RelayForwarder.open(this.http, { forwardTo, ...options });
      const refused = await Promise.race([forwarder.ready.then(() => null), forwarder.failed]);
      if (refused !== null) {
        await forwarder.close();
        throw refused;
      }
      return forwarder;
    },
  };
}

/**
 * An account made with `createAccount()`: its id, API key, login user and locations, and the
 * helpers of AccountClient with its key.
 */
export class SandboxAccount extends AccountClient implements CreatedAccount {
  readonly accountId: string;
  readonly name: string;
  readonly seed: number;
  readonly apiKey: string;
  readonly user: { email: string; password: string };
  readonly locations: Location[];

  constructor(http: SandboxHttp, account: CreatedAccount) {
    super(http);
    this.accountId = account.accountId;
    this.name = account.name;
    this.seed = account.seed;
    this.apiKey = account.apiKey;
    this.user = account.user;
    this.locations = account.locations;
  }

  /**
   * The account as environment variables for the app under test: what
   * `water-sandbox accounts create --format env` prints.
   */
  env(): Record<string, string> {
    return accountEnvironment(this.http.baseUrl, this);
  }
}

/** SANDBOX_URL, WATER_API_KEY, WATER_ACCOUNT_ID, the user and the locations of an account, in that order. */
export function accountEnvironment(sandboxUrl: string, account: CreatedAccount): Record<string, string> {
  return {
    SANDBOX_URL: sandboxUrl,
    WATER_API_KEY: account.apiKey,
    WATER_ACCOUNT_ID: account.accountId,
    WATER_USER_EMAIL: account.user.email,
    WATER_USER_PASSWORD: account.user.password,
    WATER_LOCATION_ID: account.locations[0]?.locationId ?? '',
    WATER_LOCATION_IDS: account.locations.map((l) => l.locationId).join(' '),
  };
}
