/**
 * The demo data every sandbox on the default fixtures has (fixtures/default.json, documented
 * in the README): the examples of /openapi.json use it, so "Try it" works on a fresh sandbox.
 * A test keeps these equal to the fixtures.
 */
export const DEMO = {
  apiKey: 'demo_api_key_for_the_water_monitoring_sandbox',
  accountId: '4a2f2cc5-2fd9-48f2-99bb-222913290605',
  locationId: '2311f461-b957-4b4f-ad46-fe7cd7964881',
  locationName: 'Maple Street Home',
  deviceId: '08eed7a0-f523-4113-ae2b-7e99b442618d',
  clientId: 'demo-client',
  clientSecret: 'demo-client-secret',
  redirectUri: 'http://localhost:3000/callback',
  signOutUri: 'http://localhost:3000/signed-out',
  scenario: 'slow-leak-escalates',
  /** Ids a fresh sandbox does not have yet: made by earlier calls, shown for their shape. */
  subscriptionId: '6f1c2a9e-4b7d-4e0a-9c3f-2d8e5b7a1c40',
  alertId: '9b2e4f6a-1c3d-4e5f-8a7b-0c1d2e3f4a5b',
  deliveryId: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
  runId: '7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b',
} as const;
