import {
  checkEndpoint,
  ENDPOINT_RESOLVE_TIMEOUT_MS,
  EndpointRefusedError,
  type EndpointPolicy,
  type EndpointRules,
  type RelayEndpointCheck,
} from '../../src/subscriptions/endpoint-policy.js';
import { AddressGuard, type AddressRefusal } from '../../src/webhooks/address-policy.js';

const metadata: AddressRefusal = {
  host: 'metadata.test',
  address: '169.254.169.254',
  range: 'linkLocal',
  reason: 'metadata.test resolves to 169.254.169.254, a link-local address',
  message: 'blocked: metadata.test resolves to 169.254.169.254, a link-local address (BLOCK_PRIVATE_ENDPOINTS)',
};

/** The rules with an address check that refuses nothing and records what it was asked. */
function rules(
  policy: EndpointPolicy,
  blockPrivate = false,
  refusals: Record<string, AddressRefusal> = {},
): EndpointRules & { asked: [string, number][] } {
  const asked: [string, number][] = [];
  return {
    policy,
    blockPrivate,
    asked,
    addresses: {
      checkHost: (host, timeoutMs) => {
        asked.push([host, timeoutMs]);
        return Promise.resolve(refusals[host] ?? null);
      },
    },
  };
}

/** The 400 checkEndpoint throws, as the API answers it. */
async function refusalOf(
  endpoint: unknown,
  given: EndpointRules,
  relay?: RelayEndpointCheck,
): Promise<{ status: number; code: string; message: string; parameter: unknown }> {
  const error = (await checkEndpoint(endpoint, given, relay).then(
    () => null,
    (e: unknown) => e,
  )) as { status: number; code: string; message: string; details?: { parameter?: unknown } } | null;
  if (error === null) throw new Error(`${JSON.stringify(endpoint)} was accepted`);
  return { status: error.status, code: error.code, message: error.message, parameter: error.details?.parameter };
}

describe('checkEndpoint: the shape of an endpoint', () => {
  it.each([
    [undefined, 'endpoint is required: the https URL that receives the confirmation and alert POSTs'],
    [42, 'endpoint must be a string URL; got 42'],
    [null, 'endpoint must be a string URL; got null'],
    ['not a url', 'endpoint must be an absolute URL such as https://example.com/webhooks; got "not a url"'],
    [
      'localhost:8080/hooks',
      'endpoint must be an absolute URL such as https://example.com/webhooks; got "localhost:8080/hooks"',
    ],
    ['https://', 'endpoint must be an absolute URL such as https://example.com/webhooks; got "https://"'],
    ['ftp://example.com/hooks', 'endpoint must use https; got ftp'],
    ['s3://bucket/hooks', 'endpoint must use https; got s3'],
    [
      ' https://example.com/hooks',
      'endpoint must be an absolute URL such as https://example.com/webhooks; got " https://example.com/hooks"',
    ],
    ['https://example.com/hooks#part', 'endpoint must not have a #fragment'],
    [
      `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`,
      'endpoint must be at most 2048 characters',
    ],
  ])('refuses %j with a 400 naming endpoint', async (endpoint, message) => {
    expect(await refusalOf(endpoint, rules('any'))).toEqual({
      status: 400,
      code: 'invalid_parameter',
      message,
      parameter: 'endpoint',
    });
  });

  it('accepts an endpoint of exactly 2048 characters, and answers it normalised', async () => {
    const endpoint = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    await expect(checkEndpoint(endpoint, rules('https-only'))).resolves.toBe(endpoint);
    await expect(checkEndpoint('HTTPS://Example.COM:443/Hooks?x=1', rules('https-only'))).resolves.toBe(
      'https://example.com/Hooks?x=1',
    );
  });
});

describe('checkEndpoint: ENDPOINT_POLICY', () => {
  it('https-only refuses plain http, even on loopback, as production does', async () => {
    for (const endpoint of ['http://example.com/hooks', 'http://localhost:3000/hooks']) {
      const error = await checkEndpoint(endpoint, rules('https-only')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EndpointRefusedError);
      expect(error).toMatchObject({
        status: 400,
        message: 'endpoint must use https (ENDPOINT_POLICY=https-only, as production requires)',
        details: { parameter: 'endpoint' },
        refusal: { rule: 'ENDPOINT_POLICY', range: 'https-only' },
      });
    }
  });

  it.each(['http://localhost:3000/hooks', 'http://127.0.0.1:3000/hooks', 'http://[::1]:3000/hooks'])(
    'https-or-loopback accepts %s',
    async (endpoint) => {
      await expect(checkEndpoint(endpoint, rules('https-or-loopback'))).resolves.toBe(endpoint);
    },
  );

  it.each([
    'http://example.com/hooks',
    'http://127.0.0.2/hooks',
    'http://localhost.example.com/hooks',
    'http://10.0.0.1/hooks',
  ])('https-or-loopback refuses %s', async (endpoint) => {
    await expect(checkEndpoint(endpoint, rules('https-or-loopback'))).rejects.toMatchObject({
      message:
        'endpoint must use https; plain http is accepted only for localhost, 127.0.0.1 and [::1] (ENDPOINT_POLICY=https-or-loopback)',
      refusal: { rule: 'ENDPOINT_POLICY', range: 'https-or-loopback' },
    });
  });

  it('any accepts plain http anywhere; every policy accepts https', async () => {
    await expect(checkEndpoint('http://example.com/hooks', rules('any'))).resolves.toBe('http://example.com/hooks');
    for (const policy of ['https-only', 'https-or-loopback', 'any'] as const)
      await expect(checkEndpoint('https://example.com/hooks', rules(policy))).resolves.toBe(
        'https://example.com/hooks',
      );
  });
});

describe('checkEndpoint: BLOCK_PRIVATE_ENDPOINTS', () => {
  it('refuses a host the address check refuses, with its reason, and the range for the operator', async () => {
    const given = rules('any', true, { 'metadata.test': metadata });
    const error = await checkEndpoint('https://metadata.test/latest', given).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EndpointRefusedError);
    expect(error).toMatchObject({
      status: 400,
      message:
        'endpoint must be a public address on this hosted sandbox (BLOCK_PRIVATE_ENDPOINTS=true): metadata.test resolves to 169.254.169.254, a link-local address',
      details: { parameter: 'endpoint' },
      refusal: { rule: 'BLOCK_PRIVATE_ENDPOINTS', range: 'linkLocal' },
    });
    expect(given.asked).toEqual([['metadata.test', ENDPOINT_RESOLVE_TIMEOUT_MS]]);
  });

  it('accepts what the check lets through, and asks nothing when the setting is off', async () => {
    const on = rules('any', true);
    await expect(checkEndpoint('https://partner.test/hooks', on)).resolves.toBe('https://partner.test/hooks');
    expect(on.asked).toEqual([['partner.test', ENDPOINT_RESOLVE_TIMEOUT_MS]]);
    const off = rules('any', false, { 'metadata.test': metadata });
    await expect(checkEndpoint('https://metadata.test/latest', off)).resolves.toBe('https://metadata.test/latest');
    expect(off.asked).toEqual([]);
  });

  it.each([
    ['http://[::ffff:a9fe:a9fe]/', 'an IPv4-mapped form of 169.254.169.254, a link-local address'],
    ['http://172.31.255.1/', 'a private address'],
    ['http://100.100.100.200/', 'a carrier-grade NAT address'],
    ['http://[fd00:ec2::254]/', 'a unique-local address'],
  ])('with the real address check, refuses %s: %s', async (endpoint, words) => {
    const given: EndpointRules = {
      policy: 'any',
      blockPrivate: true,
      addresses: new AddressGuard({ resolve: () => Promise.reject(new Error('no names here')) }),
    };
    await expect(checkEndpoint(endpoint, given)).rejects.toMatchObject({ message: expect.stringContaining(words) });
  });
});

describe("checkEndpoint: the sandbox's own relay endpoints", () => {
  const relay: RelayEndpointCheck = (url) =>
    url.pathname === '/relay/mine' ? 'own' : url.pathname === '/relay/theirs' ? 'foreign' : null;

  it("accepts the account's own relay endpoint under every policy, unchecked", async () => {
    for (const policy of ['https-only', 'https-or-loopback', 'any'] as const) {
      const given = rules(policy, true, { 'sandbox.test': metadata });
      await expect(checkEndpoint('http://sandbox.test/relay/mine', given, relay)).resolves.toBe(
        'http://sandbox.test/relay/mine',
      );
      expect(given.asked).toEqual([]);
    }
  });

  it("refuses another account's relay endpoint", async () => {
    expect(await refusalOf('https://sandbox.test/relay/theirs', rules('any'), relay)).toMatchObject({
      status: 400,
      message:
        'endpoint is a relay endpoint of another account: use the one water-sandbox listen prints for this account',
      parameter: 'endpoint',
    });
  });

  it('judges any other endpoint by the policy', async () => {
    await expect(checkEndpoint('http://sandbox.test/elsewhere', rules('https-only'), relay)).rejects.toMatchObject({
      refusal: { rule: 'ENDPOINT_POLICY' },
    });
  });
});
