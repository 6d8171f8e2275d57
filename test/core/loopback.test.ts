import {
  isLocalHttpHost,
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackName,
  unbracketed,
} from '../../src/core/loopback.js';

describe('isLoopbackHost: this machine, in any spelling', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'LocalHost.',
    'a.localhost',
    'api.b.localhost.',
    '127.0.0.1',
    '127.1.2.3',
    '127.255.255.255',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '[0:0:0:0:0:0:0:1]',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    'example.com',
    'localhost.example.com',
    'notlocalhost',
    'mylocalhost',
    '127.foo',
    '128.0.0.1',
    '126.255.255.255',
    '0.0.0.0',
    '::',
    '[::2]',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '10.0.0.1',
    '192.168.1.1',
    '[::1',
    '',
  ])('%s is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('isLoopbackName and isLoopbackAddress, its two halves', () => {
  it('judges names by name only', () => {
    expect(isLoopbackName('A.LOCALHOST.')).toBe(true);
    expect(isLoopbackName('127.0.0.1')).toBe(false);
  });

  it('judges addresses by address only', () => {
    expect(isLoopbackAddress('[::ffff:127.0.0.1]')).toBe(true);
    expect(isLoopbackAddress('localhost')).toBe(false);
  });
});

describe('isLocalHttpHost: where a partner URL may use plain http', () => {
  it.each(['localhost', '127.0.0.1', '[::1]'])('%s (as URL.hostname spells it) may', (host) => {
    expect(isLocalHttpHost(host)).toBe(true);
  });

  it.each(['http://LOCALHOST/', 'http://127.1/', 'http://[0:0:0:0:0:0:0:1]/'])(
    '%s reaches one of them through the URL parser',
    (url) => {
      expect(isLocalHttpHost(new URL(url).hostname)).toBe(true);
    },
  );

  it.each(['127.0.0.2', 'a.localhost', 'localhost.', '::1', '[::ffff:7f00:1]', 'example.com'])(
    '%s, loopback or not, may not',
    (host) => {
      expect(isLocalHttpHost(host)).toBe(false);
    },
  );
});

describe('unbracketed', () => {
  it('drops the brackets of an IPv6 URL host only', () => {
    expect(unbracketed('[::1]')).toBe('::1');
    expect(unbracketed('::1')).toBe('::1');
    expect(unbracketed('example.com')).toBe('example.com');
    expect(unbracketed('[::1')).toBe('[::1');
  });
});
