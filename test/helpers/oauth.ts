import type { Express } from 'express';
import request from 'supertest';

import { DEMO_CLIENT, DEMO_USER } from './demo.js';
import { unescapeHtml } from './html.js';

export interface OAuthTokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
}

export interface LoginOptions {
  email?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * Defaults to the demo client's `waterapp://callback`: a custom scheme gets no token
   * delivery, so tests that count deliveries are not disturbed by the login.
   */
  redirectUri?: string;
  state?: string;
}

export const NATIVE_REDIRECT_URI = 'waterapp://callback';

type Agent = ReturnType<typeof request.agent>;

/** RFC 6749 section 2.3.1: each value form-urlencoded, joined by ":", then base64. */
export function basicAuth(clientId: string, clientSecret: string): string {
  const encode = (v: string): string =>
    encodeURIComponent(v)
      .replace(/%20/g, '+')
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** The /login URL of an authorization request. */
export function loginPath(
  params: {
    clientId?: string | undefined;
    redirectUri?: string | undefined;
    state?: string | undefined;
    responseType?: string | undefined;
  } = {},
): string {
  const query = new URLSearchParams({
    response_type: params.responseType ?? 'code',
    client_id: params.clientId ?? DEMO_CLIENT.clientId,
    redirect_uri: params.redirectUri ?? NATIVE_REDIRECT_URI,
  });
  if (params.state !== undefined) query.set('state', params.state);
  return `/login?${query.toString()}`;
}

/** The hidden fields of a rendered login form (values are plain tokens and URIs). */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = unescapeHtml(match[2]!);
  }
  return fields;
}

/**
 * Opens the login form with `agent` (which keeps the session cookie), submits the credentials
 * and returns the final response (a 302 to the redirect URI on success).
 */
export async function submitLogin(agent: Agent, options: LoginOptions = {}): Promise<request.Response> {
  const page = await agent.get(
    loginPath({ clientId: options.clientId, redirectUri: options.redirectUri, state: options.state }),
  );
  if (page.status === 302) return page;
  if (page.status !== 200) throw new Error(`GET /login answered ${page.status}: ${page.text}`);
  return agent
    .post('/login')
    .type('form')
    .send({
      ...formFields(page.text),
      email: options.email ?? DEMO_USER.email,
      password: options.password ?? DEMO_USER.password,
    });
}

/** The `code` of a redirect answered by /login. */
export function codeOf(response: request.Response): string {
  if (response.status !== 302)
    throw new Error(`expected a redirect with a code, got ${response.status}: ${response.text}`);
  const code = new URL(response.headers['location'] as string).searchParams.get('code');
  if (!code) throw new Error(`the redirect carries no code: ${response.headers['location'] as string}`);
  return code;
}

/**
 * The login form opened and submitted as a browser behind the https proxy of a hosted sandbox
 * (X-Forwarded-Proto: https), its cookies carried by hand: a test client's cookie jar keeps
 * Secure cookies from plain http, and behind an https PUBLIC_URL every cookie is Secure. Over a
 * local sandbox's plain http the header changes nothing.
 */
async function signInBehindProxy(app: Express, options: LoginOptions): Promise<request.Response> {
  const proxy = { 'X-Forwarded-Proto': 'https' };
  const page = await request(app)
    .get(loginPath({ clientId: options.clientId, redirectUri: options.redirectUri, state: options.state }))
    .set(proxy);
  if (page.status !== 200) throw new Error(`GET /login answered ${page.status}: ${page.text}`);
  const cookies = ((page.headers['set-cookie'] as unknown as string[] | undefined) ?? []).map((c) => c.split(';')[0]!);
  return request(app)
    .post('/login')
    .set(proxy)
    .set('Cookie', cookies)
    .type('form')
    .send({
      ...formFields(page.text),
      email: options.email ?? DEMO_USER.email,
      password: options.password ?? DEMO_USER.password,
    });
}

/**
 * The real flow, as a partner runs it: login form, sign-in, code, token request with HTTP
 * Basic. Returns the token response. Any step failing throws with what came back.
 */
export async function loginAndGetToken(app: Express, options: LoginOptions = {}): Promise<OAuthTokens> {
  const code = codeOf(await signInBehindProxy(app, options));
  const res = await request(app)
    .post('/oauth2/token')
    .set(
      'Authorization',
      basicAuth(options.clientId ?? DEMO_CLIENT.clientId, options.clientSecret ?? DEMO_CLIENT.clientSecret),
    )
    .type('form')
    .send({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri ?? NATIVE_REDIRECT_URI });
  if (res.status !== 200) throw new Error(`POST /oauth2/token answered ${res.status}: ${res.text}`);
  return res.body as OAuthTokens;
}

/** A client registration as production's form asks for it; a test overrides what it cares about. */
export function partnerRegistration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Pat Partner',
    companyName: 'Partner Inc.',
    email: 'pat@partner.example',
    phone: '+1 555 0100 300',
    applicationName: 'Partner App',
    applicationWebsite: 'https://partner.example',
    description: 'Shows water use in the partner app',
    redirectUri: NATIVE_REDIRECT_URI,
    signOutUri: 'https://partner.example/signed-out',
    ...overrides,
  };
}
