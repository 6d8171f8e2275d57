import { readFileSync } from 'node:fs';

import {
  ConfigError,
  DELIVERY_LOG_LIMITS,
  describeProtections,
  HOSTED_LIMITS,
  LIMIT_VARIABLES,
  LOCAL_LIMITS,
  loadConfig,
} from '../../src/config.js';

const noFiles = (): boolean => false;

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: null,
      dataDir: './data',
      legacyDataFile: './data/sandbox.json',
      redisUrl: null,
      accountTtlSeconds: 2592000,
      resetOnStart: false,
      fixturesDir: './fixtures',
      scenariosDir: './scenarios',
      seed: 1,
      tls: { mode: 'off' },
      adminToken: null,
      accessTokenTtlSeconds: 3600,
      confirmationTokenTtlSeconds: 600,
      webhook: { timeoutMs: 5000, maxAttempts: 5, backoffMs: 1000, logLimit: 1000 },
      endpointPolicy: 'https-or-loopback',
      blockPrivateEndpoints: false,
      hosted: false,
      limits: {
        accountCreationsPerHour: 0,
        subscriptionsPerLocation: 0,
        locationsPerAccount: 10,
        openRelays: 50,
        accountBytes: 8_388_608,
        faults: 1000,
        oauthClients: 100,
        pendingDeliveries: 10_000,
        runningRuns: 100,
        openStreams: 20,
        openStreamsTotal: 1000,
        streamBufferBytes: 1_048_576,
        sessions: 100_000,
        concurrentRequests: 0,
        queuedRequests: 1000,
        accountWriteRate: 0,
      },
      secureCookies: false,
      logLevel: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.limits)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '0',
        HOST: '127.0.0.1',
        PUBLIC_URL: 'https://sandbox.example.com/',
        DATA_DIR: ':memory:',
        REDIS_URL: 'redis://localhost:6379',
        ACCOUNT_TTL: '0',
        RESET: 'true',
        SEED: '42',
        TLS: 'self-signed',
        ADMIN_TOKEN: 'secret',
        ACCESS_TOKEN_TTL: '60',
        CONFIRMATION_TOKEN_TTL: '30',
        WEBHOOK_TIMEOUT_MS: '100',
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_BACKOFF_MS: '10',
        ENDPOINT_POLICY: 'any',
        BLOCK_PRIVATE_ENDPOINTS: 'true',
        ACCOUNT_CREATION_LIMIT: '3',
        MAX_SUBSCRIPTIONS_PER_LOCATION: '4',
        MAX_LOCATIONS_PER_ACCOUNT: '2',
        MAX_OPEN_RELAYS: '1',
        ACCOUNT_STORAGE_LIMIT: '65536',
        MAX_FAULTS: '5',
        MAX_OAUTH_CLIENTS: '6',
        MAX_PENDING_DELIVERIES: '7',
        MAX_RUNNING_RUNS: '8',
        MAX_OPEN_STREAMS: '9',
        MAX_OPEN_STREAMS_TOTAL: '10',
        STREAM_BUFFER_LIMIT: '32768',
        WEBHOOK_LOG_LIMIT: '11',
        MAX_SESSIONS: '7',
        MAX_CONCURRENT_REQUESTS: '12',
        MAX_QUEUED_REQUESTS: '13',
        ACCOUNT_WRITE_RATE: '14',
        LOG_LEVEL: 'warn',
      },
      noFiles,
    );
    expect(config).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      publicUrl: 'https://sandbox.example.com',
      dataDir: ':memory:',
      legacyDataFile: null,
      redisUrl: 'redis://localhost:6379',
      accountTtlSeconds: 0,
      resetOnStart: true,
      seed: 42,
      tls: { mode: 'self-signed' },
      adminToken: 'secret',
      accessTokenTtlSeconds: 60,
      confirmationTokenTtlSeconds: 30,
      webhook: { timeoutMs: 100, maxAttempts: 2, backoffMs: 10, logLimit: 11 },
      endpointPolicy: 'any',
      blockPrivateEndpoints: true,
      limits: {
        accountCreationsPerHour: 3,
        subscriptionsPerLocation: 4,
        locationsPerAccount: 2,
        openRelays: 1,
        accountBytes: 65_536,
        faults: 5,
        oauthClients: 6,
        pendingDeliveries: 7,
        runningRuns: 8,
        openStreams: 9,
        openStreamsTotal: 10,
        streamBufferBytes: 32_768,
        sessions: 7,
        concurrentRequests: 12,
        queuedRequests: 13,
        accountWriteRate: 14,
      },
      secureCookies: true,
      logLevel: 'warn',
    });
  });

  it('uses TLS_CERT and TLS_KEY files when both exist', () => {
    const config = loadConfig({ TLS_CERT: 'cert.pem', TLS_KEY: 'key.pem' }, () => true);
    expect(config.tls).toEqual({ mode: 'files', certFile: 'cert.pem', keyFile: 'key.pem' });
  });

  it('lists every problem in one error', () => {
    let error: unknown;
    try {
      loadConfig(
        {
          PORT: 'eighty',
          SEED: '-1',
          LOG_LEVEL: 'loud',
          ENDPOINT_POLICY: 'open',
          PUBLIC_URL: 'ftp://x',
          WEBHOOK_MAX_ATTEMPTS: '0',
          TLS_CERT: 'missing.pem',
        },
        noFiles,
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(8);
    for (const name of [
      'PORT',
      'SEED',
      'LOG_LEVEL',
      'ENDPOINT_POLICY',
      'PUBLIC_URL',
      'WEBHOOK_MAX_ATTEMPTS',
      'TLS_CERT',
      'TLS_KEY',
    ]) {
      expect(problems.filter((p) => p.includes(name))).not.toEqual([]);
    }
    expect((error as Error).message).toContain('PORT="eighty": must be a whole number from 0 to 65535');
  });

  it.each([
    [{ PORT: '70000' }, 'PORT'],
    [{ TLS: 'self-signed', TLS_CERT: 'a', TLS_KEY: 'b' }, 'TLS=self-signed'],
    [{ TLS: 'files' }, 'TLS=files needs'],
    [{ BLOCK_PRIVATE_ENDPOINTS: 'maybe' }, 'BLOCK_PRIVATE_ENDPOINTS'],
    [{ SCENARIO_LOCATION_ID: 'x' }, 'SCENARIO_LOCATION_ID'],
  ])('refuses %j', (env, fragment) => {
    expect(() => loadConfig(env, () => true)).toThrow(fragment);
  });

  it('migrates DATA_FILE into DATA_DIR, and still reads the 0.1 form DATA_FILE=:memory: as a store in memory', () => {
    expect(loadConfig({ DATA_DIR: '/srv/state', DATA_FILE: '/srv/old.json' })).toMatchObject({
      dataDir: '/srv/state',
      legacyDataFile: '/srv/old.json',
    });
    expect(loadConfig({ DATA_FILE: ':memory:' })).toMatchObject({ dataDir: ':memory:', legacyDataFile: null });
  });

  it.each([
    [{ REDIS_URL: 'http://localhost:6379' }, 'REDIS_URL="http://localhost:6379": must be a redis:// or rediss:// URL'],
    [{ ACCOUNT_TTL: '-5' }, 'ACCOUNT_TTL="-5": must be a whole number'],
    [{ RESET: 'please' }, 'RESET="please": must be true or false'],
  ])('refuses %j with a message naming the variable and the rule', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' }).port).toBe(8080);
  });
});

describe('hosted: secure defaults when PUBLIC_URL is not loopback', () => {
  const LOCKED = {
    hosted: true,
    blockPrivateEndpoints: true,
    endpointPolicy: 'https-only',
    limits: HOSTED_LIMITS,
    webhook: { logLimit: 200 },
  };
  const OPEN = {
    hosted: false,
    blockPrivateEndpoints: false,
    endpointPolicy: 'https-or-loopback',
    limits: LOCAL_LIMITS,
    webhook: { logLimit: 1000 },
  };

  it('a hosted limit is never looser than the local one (0 = none), and every limit has its variable', () => {
    for (const key of Object.keys(LOCAL_LIMITS) as (keyof typeof LOCAL_LIMITS)[]) {
      expect(LIMIT_VARIABLES[key]).toMatch(/^[A-Z_]+$/);
      if (LOCAL_LIMITS[key] !== 0) expect(HOSTED_LIMITS[key]).toBeLessThanOrEqual(LOCAL_LIMITS[key]);
      expect(HOSTED_LIMITS[key]).toBeGreaterThan(0);
    }
    expect(HOSTED_LIMITS).toMatchObject({
      accountCreationsPerHour: 20,
      subscriptionsPerLocation: 20,
      locationsPerAccount: 5,
      openRelays: 5,
      accountBytes: 1_048_576,
      faults: 100,
      oauthClients: 20,
      pendingDeliveries: 1000,
      runningRuns: 10,
      concurrentRequests: 4,
      queuedRequests: 64,
      accountWriteRate: 8_388_608,
    });
  });

  it.each([
    'https://sandbox.example.com',
    'http://sandbox.example.com:8080',
    'http://192.168.1.20:8080',
    'http://10.0.0.7',
    'https://[2001:db8::5]',
  ])('PUBLIC_URL=%s is hosted: locked down', (publicUrl) => {
    expect(loadConfig({ PUBLIC_URL: publicUrl })).toMatchObject(LOCKED);
  });

  it.each([
    'http://localhost:8080',
    'http://LOCALHOST:9000',
    'http://app.localhost',
    'http://127.0.0.1:8080',
    'http://127.5.6.7',
    'http://[::1]:8080',
    'http://localhost.:8080',
    'http://[::ffff:127.0.0.1]:8080',
  ])('PUBLIC_URL=%s is local: as before', (publicUrl) => {
    expect(loadConfig({ PUBLIC_URL: publicUrl })).toMatchObject(OPEN);
  });

  it('Redis alone does not make a sandbox hosted (CI runs replicas on loopback)', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', HOST: '0.0.0.0' })).toMatchObject(OPEN);
  });

  it('an explicit setting wins over the hosted defaults, and over the local ones', () => {
    const hosted = loadConfig({
      PUBLIC_URL: 'https://sandbox.example.com',
      BLOCK_PRIVATE_ENDPOINTS: 'false',
      ENDPOINT_POLICY: 'any',
      MAX_OPEN_RELAYS: '0',
      ACCOUNT_CREATION_LIMIT: '100',
    });
    expect(hosted).toMatchObject({
      hosted: true,
      blockPrivateEndpoints: false,
      endpointPolicy: 'any',
      limits: { ...HOSTED_LIMITS, accountCreationsPerHour: 100, openRelays: 0 },
    });
    expect(loadConfig({ BLOCK_PRIVATE_ENDPOINTS: 'true', MAX_SUBSCRIPTIONS_PER_LOCATION: '3' })).toMatchObject({
      hosted: false,
      blockPrivateEndpoints: true,
      limits: { subscriptionsPerLocation: 3 },
    });
  });

  it('gates each client at 4 requests at once with 64 waiting when hosted, not at all locally; a setting wins', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com' }).limits).toMatchObject({
      concurrentRequests: 4,
      queuedRequests: 64,
    });
    expect(loadConfig({}).limits.concurrentRequests).toBe(0);
    expect(
      loadConfig({ PUBLIC_URL: 'https://sandbox.example.com', MAX_CONCURRENT_REQUESTS: '0', MAX_QUEUED_REQUESTS: '0' })
        .limits,
    ).toMatchObject({ concurrentRequests: 0, queuedRequests: 0 });
    expect(() => loadConfig({ MAX_CONCURRENT_REQUESTS: 'many' })).toThrow(
      'MAX_CONCURRENT_REQUESTS="many": must be a whole number from 0 to 100000',
    );
  });

  it('bounds the MCP waits at 4 per account of 20 s when hosted, 20 of 50 s locally; the settings win, and 0 is refused', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com' }).limits).toMatchObject({
      mcpWaits: 4,
      mcpWaitSeconds: 20,
    });
    expect(loadConfig({}).limits).toMatchObject({ mcpWaits: 20, mcpWaitSeconds: 50 });
    expect(
      loadConfig({ PUBLIC_URL: 'https://sandbox.example.com', MAX_MCP_WAITS: '8', MAX_MCP_WAIT_SECONDS: '30' }).limits,
    ).toMatchObject({ mcpWaits: 8, mcpWaitSeconds: 30 });
    expect(() => loadConfig({ MAX_MCP_WAITS: '0' })).toThrow(
      'MAX_MCP_WAITS="0": must be a whole number from 1 to 100000',
    );
    expect(() => loadConfig({ MAX_MCP_WAIT_SECONDS: '601' })).toThrow(
      'MAX_MCP_WAIT_SECONDS="601": must be a whole number from 1 to 600',
    );
  });

  it('bounds the login sessions at 10,000 when hosted, 100,000 locally; MAX_SESSIONS wins, and 0 is refused', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com' }).limits.sessions).toBe(10_000);
    expect(loadConfig({}).limits.sessions).toBe(100_000);
    expect(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com', MAX_SESSIONS: '50000' }).limits.sessions).toBe(
      50_000,
    );
    expect(() => loadConfig({ MAX_SESSIONS: '0' })).toThrow(
      'MAX_SESSIONS="0": must be a whole number from 1 to 10000000',
    );
  });

  it('opens /metrics on a local sandbox without ADMIN_TOKEN only; METRICS_OPEN wins either way', () => {
    expect(loadConfig({}).metricsOpen).toBe(true);
    expect(loadConfig({ ADMIN_TOKEN: 'x' }).metricsOpen).toBe(false);
    expect(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com' }).metricsOpen).toBe(false);
    expect(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com', METRICS_OPEN: 'true' }).metricsOpen).toBe(true);
    expect(loadConfig({ METRICS_OPEN: 'false' }).metricsOpen).toBe(false);
    const lines = describeProtections(loadConfig({ PUBLIC_URL: 'https://sandbox.example.com' }), 'https://x').join(
      '\n',
    );
    expect(lines).toMatch(/METRICS_OPEN=false +\/metrics off until ADMIN_TOKEN is set \(hosted default\)/);
    expect(lines).toMatch(/MAX_ACCOUNTS=10000 +10000 accounts stored in all \(hosted default\)/);
    expect(lines).toMatch(
      /SIGN_IN_LIMIT=60 +60 sign-ins a minute per client address, succeeded or not \(hosted default\)/,
    );
  });

  it.each([
    [{ PUBLIC_URL: 'https://sandbox.example.com' }, true],
    [{ PUBLIC_URL: 'https://localhost:8443' }, true],
    [{ PUBLIC_URL: 'http://sandbox.example.com' }, false],
    [{ PUBLIC_URL: 'http://localhost:8080' }, false],
    [{}, false],
    [{ TLS: 'self-signed' }, true],
    [{ TLS: 'self-signed', PUBLIC_URL: 'http://localhost:8080' }, false],
  ])('cookies are Secure and __Host- when browsers reach the sandbox over https: %j gives %s', (env, secure) => {
    expect(loadConfig(env).secureCookies).toBe(secure);
  });

  it('refuses caps out of range, naming the variable', () => {
    expect(() => loadConfig({ MAX_LOCATIONS_PER_ACCOUNT: '0' })).toThrow(
      'MAX_LOCATIONS_PER_ACCOUNT="0": must be a whole number from 1 to 10',
    );
    expect(() => loadConfig({ MAX_LOCATIONS_PER_ACCOUNT: '11' })).toThrow(
      'MAX_LOCATIONS_PER_ACCOUNT="11": must be a whole number from 1 to 10',
    );
    expect(() => loadConfig({ MAX_SUBSCRIPTIONS_PER_LOCATION: '-1' })).toThrow('MAX_SUBSCRIPTIONS_PER_LOCATION="-1"');
    expect(() => loadConfig({ ACCOUNT_CREATION_LIMIT: 'lots' })).toThrow('ACCOUNT_CREATION_LIMIT="lots"');
    expect(() => loadConfig({ ACCOUNT_STORAGE_LIMIT: '1000' })).toThrow(
      'ACCOUNT_STORAGE_LIMIT="1000": must be a whole number from 16384 to 1073741824',
    );
    expect(() => loadConfig({ STREAM_BUFFER_LIMIT: '0' })).toThrow(
      'STREAM_BUFFER_LIMIT="0": must be a whole number from 16384',
    );
    expect(() => loadConfig({ MAX_OPEN_STREAMS: '0' })).toThrow('MAX_OPEN_STREAMS="0": must be a whole number from 1');
  });

  it('the start-up message says which rules are in force and why', () => {
    const hosted = loadConfig({ PUBLIC_URL: 'https://sandbox.example.com', ENDPOINT_POLICY: 'any' });
    const lines = describeProtections(hosted, 'https://sandbox.example.com').join('\n');
    expect(lines).toContain(
      'hosted: PUBLIC_URL sandbox.example.com is not loopback, so the protections are on (a setting you give wins)',
    );
    expect(lines).toContain('ADMIN_TOKEN unset: global admin operations are off');
    expect(lines).toMatch(
      /BLOCK_PRIVATE_ENDPOINTS=true +webhooks reach public addresses only, checked at every connection \(hosted default\)/,
    );
    expect(lines).toMatch(/ENDPOINT_POLICY=any +any http\(s\) endpoint \(set\)/);
    expect(lines).toMatch(/ACCOUNT_CREATION_LIMIT=20 +20 new accounts an hour per client address \(hosted default\)/);
    expect(lines).toMatch(/ACCOUNT_STORAGE_LIMIT=1048576 +1 MiB stored per account \(hosted default\)/);
    expect(lines).toMatch(
      /STREAM_BUFFER_LIMIT=262144 +a stream whose client leaves 256 KiB unread is closed \(hosted default\)/,
    );
    expect(lines).toMatch(/WEBHOOK_LOG_LIMIT=200 +200 finished deliveries kept per account \(hosted default\)/);
    for (const variable of Object.values(LIMIT_VARIABLES)) expect(lines).toContain(`${variable}=`);
    expect(describeProtections(loadConfig({}), 'http://localhost:8080')).toEqual([
      "  security    local (PUBLIC_URL localhost:8080 is loopback): webhooks may reach this machine, limits are a local sandbox's generous ones; a PUBLIC_URL partners use elsewhere turns the protections on",
    ]);
  });
});

describe('docs/hosting.md: the one table of bounds', () => {
  const table = (): Map<string, { local: string; hosted: string }> => {
    const text = readFileSync('docs/hosting.md', 'utf8');
    const start = text.indexOf('| Bound | Setting | Local default | Hosted default | What a partner sees |');
    expect(start).toBeGreaterThan(0);
    const rows = text.slice(start).split('\n\n')[0]!.split('\n').slice(2);
    return new Map(
      rows.map((row) => {
        const cells = row.split(' | ');
        const first = (cell: string): string => /`([^`]+)`/.exec(cell)![1]!;
        return [first(cells[1]!), { local: first(cells[2]!), hosted: first(cells[3]!) }];
      }),
    );
  };

  it('lists every bound, with the local and hosted defaults the configuration has', () => {
    const rows = table();
    const expected = new Map<string, { local: string; hosted: string }>(
      (Object.keys(LIMIT_VARIABLES) as (keyof typeof LIMIT_VARIABLES)[]).map((key) => [
        LIMIT_VARIABLES[key],
        { local: String(LOCAL_LIMITS[key]), hosted: String(HOSTED_LIMITS[key]) },
      ]),
    );
    expected.set('WEBHOOK_LOG_LIMIT', {
      local: String(DELIVERY_LOG_LIMITS.local),
      hosted: String(DELIVERY_LOG_LIMITS.hosted),
    });
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
    // And loadConfig gives those defaults.
    const local = loadConfig({});
    const hosted = loadConfig({ PUBLIC_URL: 'https://sandbox.example.com' });
    expect([local.webhook.logLimit, hosted.webhook.logLimit]).toEqual([
      DELIVERY_LOG_LIMITS.local,
      DELIVERY_LOG_LIMITS.hosted,
    ]);
  });
});
