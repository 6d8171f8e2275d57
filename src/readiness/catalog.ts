import type { CheckId } from './model.js';

/** What the report says of a check, whatever its evidence: its name, whether production needs it, and what to do. */
export interface CheckText {
  title: string;
  required: boolean;
  /** The section of docs/readiness.md about it. */
  anchor: string;
  /** One sentence: what to change when it failed. */
  fix: string;
  /** One sentence: how to show it when nothing has yet. */
  howToShow: string;
}

export const GUIDE = 'docs/readiness.md';

export const CATALOG: Readonly<Record<CheckId, CheckText>> = {
  'oauth.token-exchange': {
    title: 'OAuth: the authorization code is exchanged and the access token used',
    required: true,
    anchor: 'oauthtoken-exchange',
    fix: "Exchange each code once and at once, with your client's own secret and exactly the redirect_uri of the sign-in link, then call the API with the access token.",
    howToShow:
      'Sign a user in through /login with your client, exchange the code at /oauth2/token and call /v1 with the access token.',
  },
  'oauth.refresh': {
    title: 'OAuth: an expired access token is refreshed, not resent',
    required: true,
    anchor: 'oauthrefresh',
    fix: 'When /v1 answers 403 to an access token, get a new one with grant_type=refresh_token and retry with it; never send an expired token more than twice.',
    howToShow: 'Run the expire-tokens drill while your client is signed in, and let it make its next /v1 calls.',
  },
  'readings.pagination': {
    title: 'Readings: every page of a multi-page answer is fetched',
    required: true,
    anchor: 'readingspagination',
    fix: 'When a readings answer has pageCount above 1, request pages 2 to pageCount with the same query (within a minute) before using the readings.',
    howToShow: 'Request readings that span more than one page, for example a month by hour, and follow pageCount.',
  },
  'readings.grouping': {
    title: 'Readings: hourly readings only over short ranges',
    required: false,
    anchor: 'readingsgrouping',
    fix: 'Ask for hourly readings over at most 31 days; group longer ranges by day, month or year.',
    howToShow: 'Request water-usage readings.',
  },
  'polling.interval': {
    title: "Polling: a location's readings at most once a minute",
    required: false,
    anchor: 'pollinginterval',
    fix: "Poll each location's readings and summary at most once a minute; the monitor reports no faster.",
    howToShow:
      "Let your integration poll a location's readings for 10 minutes (or move the account clock forward between polls).",
  },
  'errors.rate-limit': {
    title: 'Errors: Retry-After is respected after a 429',
    required: true,
    anchor: 'errorsrate-limit',
    fix: 'After a 429, wait at least the seconds its Retry-After header gives before the next request.',
    howToShow: 'Run the rate-limit drill and let your client make its next /v1 calls.',
  },
  'errors.server-errors': {
    title: 'Errors: retries after a 5xx back off',
    required: true,
    anchor: 'errorsserver-errors',
    fix: 'After a 5xx, wait at least 1 s before retrying and longer before each further retry (exponential backoff), at most 5 retries a minute.',
    howToShow: 'Run the server-errors drill and let your client make its next /v1 calls.',
  },
  'subscriptions.confirmed': {
    title: 'Subscriptions: a new subscription is confirmed with its token',
    required: true,
    anchor: 'subscriptionsconfirmed',
    fix: 'Call the confirmationUrl of the confirmation POST (confirmationToken=<token>, with the =) before the token expires.',
    howToShow: 'Subscribe an endpoint of your receiver and confirm it with the token the confirmation POST carries.',
  },
  'webhooks.confirmation-answer': {
    title: 'Webhooks: the confirmation POST is answered 2xx with JSON',
    required: true,
    anchor: 'webhooksconfirmation-answer',
    fix: 'Answer the confirmation POST at once with a 2xx status and a JSON body (for example {}).',
    howToShow: 'Subscribe an endpoint of your receiver: the sandbox sends it the confirmation POST.',
  },
  'webhooks.check-answer': {
    title: 'Webhooks: the endpoint answers GET with 2xx and JSON',
    required: true,
    anchor: 'webhookscheck-answer',
    fix: 'Answer GET requests on the webhook endpoint with a 2xx status and a JSON body: production checks the endpoint with a GET.',
    howToShow:
      'Subscribe a new endpoint of your receiver: the sandbox checks it with a GET after the confirmation POST.',
  },
  'webhooks.alert-answer': {
    title: 'Webhooks: alert notifications are answered 2xx with JSON at once',
    required: true,
    anchor: 'webhooksalert-answer',
    fix: 'Answer every alert POST at its first attempt with a 2xx status and a JSON body, and do the work after answering.',
    howToShow:
      'Start and end an alert at a location with a confirmed subscription (POST /sandbox/locations/{locationId}/alerts, or a scenario).',
  },
  'webhooks.duplicate': {
    title: 'Webhooks: a duplicate notification is answered 2xx',
    required: true,
    anchor: 'webhooksduplicate',
    fix: 'Answer a notification whose X-Sandbox-Delivery-Id you have seen before with a 2xx status, and drop it.',
    howToShow: 'Run the duplicate-delivery drill once an alert has been delivered.',
  },
  'webhooks.out-of-order': {
    title: 'Webhooks: an alert end never heard start is answered 2xx',
    required: true,
    anchor: 'webhooksout-of-order',
    fix: 'Answer an alert end (active: false) for an alert you never heard start with a 2xx status, and treat it as an alert that has ended.',
    howToShow: 'Run the out-of-order drill once a subscription is confirmed.',
  },
  'webhooks.https': {
    title: 'Webhooks: every endpoint uses https',
    required: false,
    anchor: 'webhookshttps',
    fix: 'Subscribe https endpoints: production sends webhooks to https URLs only.',
    howToShow: 'Subscribe an endpoint.',
  },
};
