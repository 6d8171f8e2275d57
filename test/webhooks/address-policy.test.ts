import type { LookupAddress, LookupOptions } from 'node:dns';

import {
  AddressGuard,
  BlockedAddressError,
  judgeAddress,
  lookupThrough,
  refusalOfLoopbackName,
  systemResolve,
  type ResolvedAddress,
} from '../../src/webhooks/address-policy.js';

/**
 * BLOCK_PRIVATE_ENDPOINTS' ranges, address by address: each refused range at its first and last
 * address, and the public neighbours just outside it (a range drawn too wide refuses partners'
 * real endpoints; one drawn too narrow lets a request reach the machine's network).
 */

const REFUSED: [address: string, range: string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['100.64.0.0', 'carrierGradeNat'],
  ['100.127.255.255', 'carrierGradeNat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.0', 'linkLocal'],
  ['169.254.169.254', 'linkLocal'],
  ['169.254.255.255', 'linkLocal'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::1', 'uniqueLocal'],
  ['fdff:ffff::1', 'uniqueLocal'],
  ['fe80::1', 'linkLocal'],
  ['ff02::1', 'multicast'],
  ['2002:7f00:1::', 'loopback'],
  ['2001:0:4136:e378::1', 'reserved'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'deprecatedSiteLocal'],
  ['::7f00:1', 'loopback'],
  ['::2', 'unspecified'],
];

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:82a::200e',
];

describe('judgeAddress', () => {
  it.each(REFUSED)('refuses %s (%s)', (address, range) => {
    expect(judgeAddress(address)).toMatchObject({ range });
  });

  it.each(PUBLIC)('lets %s through', (address) => {
    expect(judgeAddress(address)).toBeNull();
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'loopback', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:169.254.169.254', 'linkLocal', 'an IPv4-mapped form of 169.254.169.254, a link-local address'],
    ['::ffff:172.31.0.1', 'private', 'an IPv4-mapped form of 172.31.0.1, a private address'],
    ['::ffff:100.64.0.1', 'carrierGradeNat', 'an IPv4-mapped form of 100.64.0.1, a carrier-grade NAT address'],
    ['::ffff:0:10.0.0.1', 'private', 'an IPv4-translated form of 10.0.0.1, a private address'],
    ['64:ff9b::7f00:1', 'loopback', 'a NAT64 form of 127.0.0.1, a loopback address'],
    ['64:ff9b::c0a8:101', 'private', 'a NAT64 form of 192.168.1.1, a private address'],
  ])('judges %s by the IPv4 address it carries', (address, range, words) => {
    expect(judgeAddress(address)).toEqual({ range, words });
  });

  it.each(['::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::808:808'])(
    'lets %s through: it carries a public IPv4 address',
    (address) => {
      expect(judgeAddress(address)).toBeNull();
    },
  );

  // Deprecated forms that carry an IPv4 address: refused like the address they carry, and refused
  // even when it is public (nothing but a tunnel or an old stack reaches them).
  it.each([
    ['::7f00:1', 'loopback', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['::127.0.0.1', 'loopback', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['::a9fe:a9fe', 'linkLocal', 'an IPv4-compatible form of 169.254.169.254, a link-local address'],
    ['::c0a8:101', 'private', 'an IPv4-compatible form of 192.168.1.1, a private address'],
    ['::0.0.0.2', 'unspecified', 'an IPv4-compatible form of 0.0.0.2, an unspecified address'],
    ['::808:808', 'ipv4Compatible', 'an IPv4-compatible form of 8.8.8.8, a deprecated form no endpoint uses'],
    ['2002:7f00:1::', 'loopback', 'a 6to4 form of 127.0.0.1, a loopback address'],
    ['2002:a00:1:ffff::1', 'private', 'a 6to4 form of 10.0.0.1, a private address'],
    ['2002:808:808::1', '6to4', 'a 6to4 form of 8.8.8.8, a deprecated form no endpoint uses'],
    // Teredo carries the client's address inverted: 80ff:fffe is 127.0.0.1.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'a Teredo form of 127.0.0.1, a loopback address'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private', 'a Teredo form of 10.0.0.1, a private address'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'teredo', 'a Teredo form of 8.8.8.8, a deprecated form no endpoint uses'],
  ])('refuses the deprecated form %s, named by the IPv4 address it carries', (address, range, words) => {
    expect(judgeAddress(address)).toEqual({ range, words });
  });

  it('keeps the names of :: and ::1, which are in ::/96 too', () => {
    expect(judgeAddress('::')).toEqual({ range: 'unspecified', words: 'an unspecified address' });
    expect(judgeAddress('::1')).toEqual({ range: 'loopback', words: 'a loopback address' });
  });

  it('refuses site-local addresses (fec0::/10, deprecated) as private ones', () => {
    expect(judgeAddress('fec0::1')).toEqual({
      range: 'deprecatedSiteLocal',
      words: 'a site-local address (deprecated, private like fc00::/7)',
    });
    expect(judgeAddress('fdff::1')).toMatchObject({ range: 'uniqueLocal' });
    expect(judgeAddress('ff00::1')).toMatchObject({ range: 'multicast' });
  });

  it('describes each range in words, and a range it has no words for by its name', () => {
    expect(judgeAddress('10.1.2.3')).toEqual({ range: 'private', words: 'a private address' });
    expect(judgeAddress('fd00::1')).toEqual({ range: 'uniqueLocal', words: 'a unique-local address' });
    expect(judgeAddress('255.255.255.255')).toEqual({ range: 'broadcast', words: 'the broadcast address' });
    expect(judgeAddress('::')).toEqual({ range: 'unspecified', words: 'an unspecified address' });
    expect(judgeAddress('198.18.0.1')).toEqual({
      range: 'reserved',
      words: 'a reserved address (documentation, benchmarking or future use)',
    });
    expect(judgeAddress('2001:2::1')).toEqual({ range: 'benchmarking', words: 'a benchmarking address' });
    expect(judgeAddress('64:ff9b:1::a00:1')).toEqual({
      range: 'rfc6052',
      words: 'a special-purpose address (rfc6052)',
    });
  });

  it('judges a link-local address with its zone (fe80::1%eth0), as a resolver may answer one', () => {
    expect(judgeAddress('fe80::1%eth0')).toEqual({ range: 'linkLocal', words: 'a link-local address' });
  });

  it('refuses what is not an address', () => {
    expect(judgeAddress('example.com')).toEqual({ range: 'invalid', words: 'not an IP address' });
  });
});

describe('loopback names', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.localhost.'])(
    '%s is loopback whatever a resolver says',
    (host) => {
      expect(refusalOfLoopbackName(host)).toEqual({
        host,
        address: '',
        range: 'loopback',
        reason: `${host} is a loopback name`,
        message: `blocked: ${host} is a loopback name (BLOCK_PRIVATE_ENDPOINTS)`,
      });
    },
  );

  it.each(['localhost.example.com', 'notlocalhost', 'mylocalhost', 'example.com'])('%s is an ordinary name', (host) => {
    expect(refusalOfLoopbackName(host)).toBeNull();
  });
});

describe('systemResolve', () => {
  // Addresses resolve to themselves without asking DNS: the machine's resolver, loopback only.
  it('gives each address the family node:dns reports, which the socket connects with', async () => {
    expect(await systemResolve('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await systemResolve('::1')).toEqual([{ address: '::1', family: 6 }]);
  });
});

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** A resolver with fixed answers that counts its calls. */
function resolver(names: Record<string, ResolvedAddress[]>): {
  resolve: (host: string) => Promise<ResolvedAddress[]>;
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    resolve: (host) => {
      asked.push(host);
      const answer = names[host];
      return answer
        ? Promise.resolve(answer)
        : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    },
  };
}

describe('AddressGuard', () => {
  describe('checkLiteral', () => {
    const guard = new AddressGuard({ resolve: () => Promise.reject(new Error('no lookups here')) });

    it('refuses an address host, brackets and all, naming the host as written and the address', () => {
      expect(guard.checkLiteral('[::ffff:7f00:1]')).toEqual({
        host: '[::ffff:7f00:1]',
        address: '::ffff:7f00:1',
        range: 'loopback',
        reason: '[::ffff:7f00:1] is an IPv4-mapped form of 127.0.0.1, a loopback address',
        message:
          'blocked: [::ffff:7f00:1] is an IPv4-mapped form of 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
      });
      expect(guard.checkLiteral('169.254.169.254')).toMatchObject({
        address: '169.254.169.254',
        range: 'linkLocal',
        reason: '169.254.169.254 is a link-local address',
      });
    });

    it('leaves public addresses and names alone (names are judged when they resolve)', () => {
      expect(guard.checkLiteral('8.8.8.8')).toBeNull();
      expect(guard.checkLiteral('[2606:4700:4700::1111]')).toBeNull();
      expect(guard.checkLiteral('vm.internal')).toBeNull();
      expect(guard.checkLiteral('localhost')).toBeNull();
    });

    it('lets through the addresses treatAsPublic names (the tests and the bench, whose receivers are on loopback)', () => {
      const lenient = new AddressGuard({ treatAsPublic: (address) => address === '127.0.0.1' });
      expect(lenient.checkLiteral('127.0.0.1')).toBeNull();
      expect(lenient.checkLiteral('127.0.0.2')).toMatchObject({ range: 'loopback' });
    });
  });

  describe('resolveChecked', () => {
    it('gives the addresses of a name whose every address is public', async () => {
      const { resolve } = resolver({
        'partner.test': [v4('93.184.215.14'), v6('2606:2800:21f:cb07:6820:80da:af6b:8b2c')],
      });
      await expect(new AddressGuard({ resolve }).resolveChecked('partner.test')).resolves.toEqual({
        addresses: [v4('93.184.215.14'), v6('2606:2800:21f:cb07:6820:80da:af6b:8b2c')],
      });
    });

    it('refuses a name with any address that is not public, naming the first such address', async () => {
      const { resolve } = resolver({ 'mixed.test': [v4('93.184.215.14'), v4('172.20.0.3'), v4('10.0.0.1')] });
      await expect(new AddressGuard({ resolve }).resolveChecked('mixed.test')).resolves.toEqual({
        refusal: {
          host: 'mixed.test',
          address: '172.20.0.3',
          range: 'private',
          reason: 'mixed.test resolves to 172.20.0.3, a private address',
          message: 'blocked: mixed.test resolves to 172.20.0.3, a private address (BLOCK_PRIVATE_ENDPOINTS)',
        },
      });
    });

    it('refuses a loopback name without asking the resolver', async () => {
      const { resolve, asked } = resolver({ localhost: [v4('8.8.8.8')] });
      await expect(new AddressGuard({ resolve }).resolveChecked('localhost')).resolves.toMatchObject({
        refusal: { range: 'loopback' },
      });
      expect(asked).toEqual([]);
    });

    it('skips the addresses treatAsPublic names, and still judges the others', async () => {
      const { resolve } = resolver({
        'receiver.test': [v4('127.0.0.1')],
        'half.test': [v4('127.0.0.1'), v4('10.0.0.1')],
      });
      const guard = new AddressGuard({ resolve, treatAsPublic: (address) => address === '127.0.0.1' });
      await expect(guard.resolveChecked('receiver.test')).resolves.toEqual({ addresses: [v4('127.0.0.1')] });
      await expect(guard.resolveChecked('half.test')).resolves.toMatchObject({ refusal: { address: '10.0.0.1' } });
    });
  });

  describe('checkHost', () => {
    it('judges an address host itself and a name through the resolver', async () => {
      const { resolve, asked } = resolver({
        'metadata.test': [v4('169.254.169.254')],
        'partner.test': [v4('93.184.215.14')],
      });
      const guard = new AddressGuard({ resolve });
      await expect(guard.checkHost('[fe80::1]', 1000)).resolves.toMatchObject({
        range: 'linkLocal',
        address: 'fe80::1',
      });
      await expect(guard.checkHost('metadata.test', 1000)).resolves.toMatchObject({
        range: 'linkLocal',
        address: '169.254.169.254',
      });
      await expect(guard.checkHost('partner.test', 1000)).resolves.toBeNull();
      expect(asked).toEqual(['metadata.test', 'partner.test']);
    });

    it('leaves a name that does not resolve, or not in time, to the connection: no refusal now', async () => {
      const failing = new AddressGuard({ resolve: () => Promise.reject(new Error('SERVFAIL')) });
      await expect(failing.checkHost('broken.test', 1000)).resolves.toBeNull();
      const hanging = new AddressGuard({ resolve: () => new Promise<never>(() => undefined) });
      await expect(hanging.checkHost('slow.test', 20)).resolves.toBeNull();
    });
  });

  describe('lookup, the connect-time hook', () => {
    type Answer = {
      error: NodeJS.ErrnoException | null;
      address: string | LookupAddress[] | undefined;
      family: number | undefined;
    };
    const lookUp = (lookup: AddressGuard['lookup'], host: string, options: LookupOptions): Promise<Answer> =>
      new Promise((resolve) => {
        lookup(host, options, (error, address, family) => resolve({ error, address, family }));
      });
    const names = {
      'dual.test': [v6('2606:4700:4700::1111'), v4('1.1.1.1')],
      'four-first.test': [v4('1.1.1.1'), v6('2606:4700:4700::1111')],
      'six.test': [v6('2606:4700:4700::1111')],
      'inside.test': [v4('1.1.1.1'), v4('192.168.0.10')],
    };

    it.each<[string, LookupOptions, Answer['address'], Answer['family']]>([
      ['dual.test', {}, '2606:4700:4700::1111', 6],
      ['dual.test', { family: 4 }, '1.1.1.1', 4],
      ['dual.test', { family: 6 }, '2606:4700:4700::1111', 6],
      ['four-first.test', { family: 6 }, '2606:4700:4700::1111', 6],
      ['dual.test', { all: true }, names['dual.test'], undefined],
      ['dual.test', { all: true, family: 4 }, [v4('1.1.1.1')], undefined],
    ])(
      'hands the socket asking for %s with %j the first checked address of the family, or all of them: %j',
      async (host, options, address, family) => {
        const { lookup } = new AddressGuard({ resolve: resolver(names).resolve });
        expect(await lookUp(lookup, host, options)).toEqual({ error: null, address, family });
      },
    );

    it('answers ENOTFOUND when the name has no address of the family asked for', async () => {
      const { lookup } = new AddressGuard({ resolve: resolver(names).resolve });
      const { error } = await lookUp(lookup, 'six.test', { family: 4 });
      expect(error).toMatchObject({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND six.test' });
    });

    it('fails the connection with BlockedAddressError when an address is not public', async () => {
      const { lookup } = new AddressGuard({ resolve: resolver(names).resolve });
      const { error } = await lookUp(lookup, 'inside.test', {});
      expect(error).toBeInstanceOf(BlockedAddressError);
      expect(error).toMatchObject({
        code: 'ERR_BLOCKED_ADDRESS',
        name: 'BlockedAddressError',
        refusal: { address: '192.168.0.10', range: 'private' },
      });
    });

    it("passes on the resolver's failure", async () => {
      const { lookup } = new AddressGuard({ resolve: resolver(names).resolve });
      expect((await lookUp(lookup, 'unknown.test', {})).error).toMatchObject({ code: 'ENOTFOUND' });
    });

    it.each<[string, LookupOptions, Answer['address'], Answer['family']]>([
      ['inside.test', { family: 4 }, '1.1.1.1', 4],
      ['four-first.test', { family: 6 }, '2606:4700:4700::1111', 6],
      ['inside.test', { all: true }, names['inside.test'], undefined],
    ])(
      'lookupThrough resolves the same way without judging (BLOCK_PRIVATE_ENDPOINTS off, an injected resolver): %s with %j is %j',
      async (host, options, address, family) => {
        const lookup = lookupThrough(resolver(names).resolve);
        expect(await lookUp(lookup, host, options)).toEqual({ error: null, address, family });
      },
    );

    it('lookupThrough answers ENOTFOUND for a name without an address of the family asked for, and for an unknown one', async () => {
      const lookup = lookupThrough(resolver(names).resolve);
      expect((await lookUp(lookup, 'six.test', { family: 4 })).error).toMatchObject({ code: 'ENOTFOUND' });
      expect((await lookUp(lookup, 'unknown.test', {})).error).toMatchObject({ code: 'ENOTFOUND' });
    });
  });
});
