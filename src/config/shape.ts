import type { LogLevel } from '../core/log-levels.js';
import type { TlsConfig } from '../http/tls.js';
import type { EndpointPolicy } from '../subscriptions/endpoint-policy.js';

/** The sandbox's configuration, as loadConfig (config.ts) makes it from the environment. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Base URL written into confirmation URLs; null means "http(s)://localhost:<the port actually bound>". */
  readonly publicUrl: string | null;
  /** Folder of the embedded store, or ":memory:". */
  readonly dataDir: string;
  /** A state file of version 0.1, migrated into a fresh DATA_DIR when it exists. */
  readonly legacyDataFile: string | null;
  /** When set, all state lives in this Redis and replicas share it. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key and channel, so several sandboxes can share one Redis. */
  readonly redisPrefix: string;
  /** Seconds without a request after which a generated account is deleted; 0 = never. */
  readonly accountTtlSeconds: number;
  readonly fixturesDir: string;
  readonly scenariosDir: string;
  readonly seed: number;
  readonly tls: TlsConfig;
  readonly adminToken: string | null;
  readonly accessTokenTtlSeconds: number;
  readonly confirmationTokenTtlSeconds: number;
  readonly authorizationCodeTtlSeconds: number;
  /** The HTTP server's limits on a client: its headers, its whole request, an idle kept-alive connection. */
  readonly http: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
  };
  readonly webhook: {
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly backoffMs: number;
    readonly concurrency: number;
    readonly logLimit: number;
  };
  readonly endpointPolicy: EndpointPolicy;
  readonly blockPrivateEndpoints: boolean;
  /**
   * Reached from elsewhere: PUBLIC_URL names a host that is not loopback. Then the protections
   * default to on (BLOCK_PRIVATE_ENDPOINTS, ENDPOINT_POLICY=https-only, the limits below); a
   * variable set explicitly still wins. Redis alone does not make a sandbox hosted.
   */
  readonly hosted: boolean;
  /**
   * What one account may hold or open, and the account-creation rate; each a setting with a
   * generous local default and a tighter hosted one (docs/hosting.md lists them). 0 = none,
   * where a setting allows it.
   */
  readonly limits: {
    /** POST /sandbox/accounts per client address per hour, while ADMIN_TOKEN is unset. */
    readonly accountCreationsPerHour: number;
    /** The same per IPv6 /48, the block of one site, which holds 65,536 /64s (ACCOUNT_CREATION_PREFIX_LIMIT). */
    readonly accountCreationsPerPrefixPerHour: number;
    /** Accounts stored in all, fixtures included (MAX_ACCOUNTS). */
    readonly accounts: number;
    /** Sign-ins (the dashboard's and /login's forms) per client address per minute, succeeded or not (SIGN_IN_LIMIT). */
    readonly signInsPerMinute: number;
    readonly subscriptionsPerLocation: number;
    /** Locations of an account made with POST /sandbox/accounts. */
    readonly locationsPerAccount: number;
    /** `water-sandbox listen` streams one account holds open at once on one replica. */
    readonly openRelays: number;
    /** Bytes of one account's stored document, checked on every change (ACCOUNT_STORAGE_LIMIT). */
    readonly accountBytes: number;
    /** Faults queued in one account (MAX_FAULTS). */
    readonly faults: number;
    /** OAuth clients one account registers (MAX_OAUTH_CLIENTS). */
    readonly oauthClients: number;
    /** Applications of other accounts that one account's users allowed on the consent page (MAX_CONNECTED_APPS). */
    readonly connectedApps: number;
    /** Deliveries of one account waiting to be sent (MAX_PENDING_DELIVERIES). */
    readonly pendingDeliveries: number;
    /** Scenario runs of one account running at once (MAX_RUNNING_RUNS). */
    readonly runningRuns: number;
    /** Dashboard event streams one account holds open at once on one replica (MAX_OPEN_STREAMS). */
    readonly openStreams: number;
    /** Event streams (dashboards and listen) open at once on one replica, all accounts together (MAX_OPEN_STREAMS_TOTAL). */
    readonly openStreamsTotal: number;
    /** Bytes written to an event stream and not yet taken by its client, past which the stream is closed (STREAM_BUFFER_LIMIT). */
    readonly streamBufferBytes: number;
    /** Login sessions the sandbox keeps in all, past which the least recently used one ends (MAX_SESSIONS). */
    readonly sessions: number;
    /** Requests of one client (an address, a credential) one replica works on at once; 0 = no gate (MAX_CONCURRENT_REQUESTS). */
    readonly concurrentRequests: number;
    /** Requests of one client waiting their turn on one replica, past which the next is a 429 (MAX_QUEUED_REQUESTS). */
    readonly queuedRequests: number;
    /** Bytes a second one account's file is written at, at most, on the embedded store; 0 = no limit (ACCOUNT_WRITE_RATE). */
    readonly accountWriteRate: number;
    /** Live audience links of the presenter view one account holds (MAX_DEMO_LINKS). */
    readonly demoLinks: number;
    /** Presenter-view event streams (the presenter's and the audience's) one account holds open at once on one replica (MAX_DEMO_VIEWERS). */
    readonly demoViewers: number;
    /** MCP wait_for_delivery calls one account has waiting at once on one replica (MAX_MCP_WAITS). */
    readonly mcpWaits: number;
    /** The longest one MCP wait_for_delivery call waits, in seconds (MAX_MCP_WAIT_SECONDS). */
    readonly mcpWaitSeconds: number;
  };
  /**
   * Whether the browser reaches the sandbox over https (PUBLIC_URL is https, or, without one, TLS
   * is on): then every cookie is Secure and named with the __Host- prefix.
   */
  readonly secureCookies: boolean;
  /**
   * Whether /metrics answers without ADMIN_TOKEN (METRICS_OPEN; by default only a local sandbox
   * without ADMIN_TOKEN). Otherwise it needs `Authorization: Bearer $ADMIN_TOKEN`, and is off
   * while ADMIN_TOKEN is unset.
   */
  readonly metricsOpen: boolean;
  /** The protection variables that were set, rather than defaulted (the start-up message says which). */
  readonly protectionsSet: readonly string[];
  readonly logLevel: LogLevel;
  /** Whether a token response is also POSTed to the client's redirect URI, as production documents. */
  readonly tokenDelivery: boolean;
  /** Put every account back to the fixtures at start-up (RESET=true, or serve --reset). */
  readonly resetOnStart: boolean;
  /** A scenario to play at start-up, for demos. */
  readonly startupScenario: { readonly name: string; readonly locationId: string | null } | null;
}

/** What one account may hold or open, and the account-creation rate (Config['limits']). */
export type Limits = Config['limits'];
