import { startEnvironment } from '../../src/testcontainers/index.js';

/** What `WaterSandboxContainer.start()` adds to the container's environment for the engine's host. */
describe('the Testcontainers module judges the engine host by core/loopback.ts', () => {
  const hosted = { ENDPOINT_POLICY: 'any', BLOCK_PRIVATE_ENDPOINTS: 'false' };

  it.each([
    ['localhost', 'http://localhost:5000'],
    ['LOCALHOST', 'http://LOCALHOST:5000'],
    ['localhost.', 'http://localhost.:5000'],
    ['podman.localhost', 'http://podman.localhost:5000'],
    ['127.0.0.1', 'http://127.0.0.1:5000'],
    ['127.1.2.3', 'http://127.1.2.3:5000'],
    ['::1', 'http://[::1]:5000'],
    ['::ffff:127.0.0.1', 'http://[::ffff:127.0.0.1]:5000'],
  ])('keeps a sandbox on %s local: its PUBLIC_URL only', (host, publicUrl) => {
    expect(startEnvironment(host, 5000, {})).toEqual({ PUBLIC_URL: publicUrl });
  });

  it.each([
    ['127.example.com', 'http://127.example.com:5000'],
    ['docker.example.com', 'http://docker.example.com:5000'],
    ['192.168.1.20', 'http://192.168.1.20:5000'],
    ['fd00::20', 'http://[fd00::20]:5000'],
    ['localhost.example.com', 'http://localhost.example.com:5000'],
  ])('gives a sandbox on the remote engine %s the endpoint rules of a local one', (host, publicUrl) => {
    expect(startEnvironment(host, 5000, {})).toEqual({ PUBLIC_URL: publicUrl, ...hosted });
  });

  it('leaves an ENDPOINT_POLICY given, and adds nothing when PUBLIC_URL was given', () => {
    expect(startEnvironment('docker.example.com', 5000, { ENDPOINT_POLICY: 'https-only' })).toEqual({
      PUBLIC_URL: 'http://docker.example.com:5000',
    });
    expect(startEnvironment('docker.example.com', 5000, { PUBLIC_URL: 'https://sandbox.example.com' })).toEqual({});
  });
});
