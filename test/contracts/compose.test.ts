import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { parse } from 'yaml';

import { loadConfig } from '../../src/config.js';

const run = promisify(execFile);

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  // YAML reads `PORT: 8080` as a number.
  environment?: Record<string, string | number | boolean>;
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: {
    test: string[];
    interval?: string;
    timeout?: string;
    retries?: number;
    start_period?: string;
    start_interval?: string;
  };
  ports?: string[];
  volumes?: string[];
}

/** `${NAME:-default}` as compose would expand it with NAME unset. */
const withDefaults = (value: string): string => value.replace(/\$\{\w+:-([^}]*)\}/g, '$1');

// There is no Docker engine on the build machines: compose.yaml is checked by its structure.
describe('compose.yaml', () => {
  let services: Record<string, Service>;
  let nginx: string;

  beforeAll(async () => {
    const compose = parse(await readFile('compose.yaml', 'utf8')) as {
      services: Record<string, Service>;
      volumes: Record<string, unknown>;
    };
    services = compose.services;
    nginx = await readFile('deploy/nginx.conf', 'utf8');
  });

  it('has Redis, the sandbox and a proxy, each with a health check', () => {
    expect(Object.keys(services).sort()).toEqual(['proxy', 'redis', 'sandbox']);
    for (const service of Object.values(services)) expect(service.healthcheck?.test.length).toBeGreaterThan(0);
  });

  it('checks the sandbox every 250 ms while it starts, so it is healthy within a second (Docker Engine 25+)', () => {
    const healthcheck = services['sandbox']!.healthcheck!;
    expect(healthcheck.start_interval).toBe('250ms');
    expect(healthcheck.start_period).toBe('10s');
  });

  it('times the sandbox check as the image HEALTHCHECK does (interval, timeout, retries, start period); the fast start is its own', async () => {
    const dockerfile = await readFile('Dockerfile', 'utf8');
    const flags = Object.fromEntries(
      [...dockerfile.match(/^HEALTHCHECK (.*) CMD /m)![1]!.matchAll(/--([\w-]+)=(\S+)/g)].map(([, name, value]) => [
        name!.replace('-', '_'),
        value,
      ]),
    );
    const timings = Object.entries(services['sandbox']!.healthcheck!).filter(
      ([key]) => key !== 'test' && key !== 'start_interval',
    );
    expect(flags).toEqual(Object.fromEntries(timings.map(([key, value]) => [key, String(value)])));
    // The image leaves it out, so that it builds on Docker before 25 and Podman 4 (test/contracts/dockerfile.test.ts).
    expect(flags).not.toHaveProperty('start_interval');
  });

  it('runs Redis from the official image with AOF persistence on a volume', () => {
    const redis = services['redis']!;
    expect(redis.image).toMatch(/^redis:7/);
    const command = redis.command!.join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toMatch(/--appendfsync (always|everysec)/);
    expect(redis.volumes).toContain('redis-data:/data');
    expect(redis.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('runs two replicas of the image on that Redis, checked by the image HEALTHCHECK, with a valid configuration', async () => {
    const sandbox = services['sandbox']!;
    expect(sandbox.build).toBe('.');
    expect(sandbox.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(sandbox.environment?.['REDIS_URL']).toBe('redis://redis:6379');
    expect(sandbox.depends_on?.['redis']?.condition).toBe('service_healthy');
    expect(sandbox.healthcheck!.test).toEqual(['CMD', 'node', 'dist/water-sandbox-healthcheck.js']);
    expect(await readFile('Dockerfile', 'utf8')).toMatch(
      /^HEALTHCHECK .*CMD \["node", "dist\/water-sandbox-healthcheck.js"\]$/m,
    );
    // What a hosted deployment sets, each a variable the sandbox knows.
    for (const name of ['ADMIN_TOKEN', 'BLOCK_PRIVATE_ENDPOINTS', 'PUBLIC_URL', 'ACCOUNT_TTL'])
      expect(Object.keys(sandbox.environment ?? {})).toContain(name);
    const env = Object.fromEntries(
      Object.entries(sandbox.environment ?? {}).map(([k, v]) => [k, withDefaults(String(v))]),
    );
    expect(() => loadConfig({ ...env, ADMIN_TOKEN: 'set-in-production' })).not.toThrow();
  });

  it('leaves the protections to the hosted defaults: locked down once PUBLIC_URL is the public address, as on a laptop before', () => {
    const environment = services['sandbox']!.environment ?? {};
    const env = (publicUrl?: string): Record<string, string> =>
      Object.fromEntries(
        Object.entries(environment).map(([k, v]) => [
          k,
          String(v).replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) =>
            name === 'PUBLIC_URL' && publicUrl ? publicUrl : fallback,
          ),
        ]),
      );
    for (const name of [
      'BLOCK_PRIVATE_ENDPOINTS',
      'ENDPOINT_POLICY',
      'ACCOUNT_CREATION_LIMIT',
      'MAX_SUBSCRIPTIONS_PER_LOCATION',
      'MAX_LOCATIONS_PER_ACCOUNT',
      'MAX_OPEN_RELAYS',
      'MAX_SESSIONS',
    ]) {
      expect({ name, value: environment[name] }).toEqual({ name, value: `\${${name}:-}` });
    }
    const hosted = loadConfig(env('https://sandbox.example.com'));
    expect(hosted).toMatchObject({
      hosted: true,
      blockPrivateEndpoints: true,
      endpointPolicy: 'https-only',
      limits: {
        accountCreationsPerHour: 20,
        subscriptionsPerLocation: 20,
        locationsPerAccount: 5,
        openRelays: 5,
        sessions: 10_000,
      },
    });
    expect(loadConfig(env())).toMatchObject({
      hosted: false,
      blockPrivateEndpoints: false,
      endpointPolicy: 'https-or-loopback',
    });
  });

  it('puts one nginx port in front of every replica (the sandbox service, resolved per replica)', () => {
    const proxy = services['proxy']!;
    expect(proxy.image).toMatch(/^nginx:/);
    expect(proxy.ports).toHaveLength(1);
    expect(withDefaults(proxy.ports![0]!)).toBe('8080:8080');
    expect(proxy.depends_on?.['sandbox']?.condition).toBe('service_healthy');
    const mount = proxy.volumes!.find((v) => v.includes('/etc/nginx/'))!;
    const [source] = mount.split(':');
    expect(existsSync(resolve(source!))).toBe(true);
    expect(source).toBe('./deploy/nginx.conf');
    // The sandbox service's name at the image's port; Docker's DNS answers it with each replica.
    expect(nginx).toMatch(/listen 8080;/);
    expect(nginx).toMatch(/resolver 127\.0\.0\.11 /);
    expect(nginx).toMatch(/set \$sandbox http:\/\/sandbox:8080;/);
    expect(nginx).toMatch(/proxy_pass \$sandbox;/);
    expect(nginx).toMatch(/proxy_next_upstream [^;]*http_503/);
  });

  (existsSync('/usr/sbin/nginx') ? it : it.skip)(
    'the proxy configuration passes nginx -t (when nginx is installed)',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'nginx-check-'));
      try {
        const main = `pid ${dir}/nginx.pid; error_log stderr; events {} http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; include ${resolve('deploy/nginx.conf')}; }`;
        await writeFile(join(dir, 'nginx.conf'), main);
        await expect(
          run('/usr/sbin/nginx', ['-t', '-q', '-p', dir, '-c', join(dir, 'nginx.conf')]),
        ).resolves.toBeDefined();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
