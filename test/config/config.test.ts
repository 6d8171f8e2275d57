import { ConfigError, loadConfig } from '../../src/config.js';

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
      webhook: { timeoutMs: 5000, maxAttempts: 5, backoffMs: 1000 },
      endpointPolicy: 'https-or-loopback',
      blockPrivateEndpoints: false,
      logLevel: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
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
      webhook: { timeoutMs: 100, maxAttempts: 2, backoffMs: 10 },
      endpointPolicy: 'any',
      blockPrivateEndpoints: true,
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
      loadConfig({ PORT: 'eighty', SEED: '-1', LOG_LEVEL: 'loud', ENDPOINT_POLICY: 'open', PUBLIC_URL: 'ftp://x', WEBHOOK_MAX_ATTEMPTS: '0', TLS_CERT: 'missing.pem' }, noFiles);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(8);
    for (const name of ['PORT', 'SEED', 'LOG_LEVEL', 'ENDPOINT_POLICY', 'PUBLIC_URL', 'WEBHOOK_MAX_ATTEMPTS', 'TLS_CERT', 'TLS_KEY']) {
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
    expect(loadConfig({ DATA_DIR: '/srv/state', DATA_FILE: '/srv/old.json' })).toMatchObject({ dataDir: '/srv/state', legacyDataFile: '/srv/old.json' });
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
