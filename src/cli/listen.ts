import { SandboxError } from '../client/http.js';
import { RelayForwarder, type RelayRequest } from '../client/relay.js';
import type { Relay } from '../client/types.js';
import { cliErrorOf, isSharedKey, resolveTarget, sandboxIsHosted, type SandboxClient } from './client.js';
import { clientFor, type CommonOptions } from './commands.js';
import { CliError, type CliContext } from './context.js';
import { RelayMemory } from './relay-memory.js';

export interface ListenOptions extends CommonOptions {
  forwardTo: string;
  subscribe?: string[];
  name?: string;
}

const short = (id: string): string => id.slice(0, 8);

/** What a webhook is, for the line printed per request. */
function describeRequest(request: RelayRequest): string {
  const delivery = request.headers['x-sandbox-delivery-id'] ?? request.headers['X-Sandbox-Delivery-Id'];
  const attempt = request.headers['x-sandbox-attempt'] ?? request.headers['X-Sandbox-Attempt'];
  const tag = delivery ? ` [delivery ${short(delivery)}${attempt ? `, attempt ${attempt}` : ''}]` : '';
  if (request.method === 'GET') return `GET  receiver check${tag}`;
  let what = 'webhook';
  try {
    const body = JSON.parse(request.body ?? 'null') as Record<string, unknown> | null;
    if (typeof body?.['confirmationToken'] === 'string') what = 'subscription confirmation';
    else if (typeof body?.['type'] === 'string' && typeof body['active'] === 'boolean') {
      what = `alert ${body['type']} ${body['active'] ? 'started' : 'ended'} at location ${short(typeof body['locationId'] === 'string' ? body['locationId'] : '')}`;
    }
  } catch {
    // not JSON: a plain "webhook"
  }
  return `POST ${what}${tag}`;
}

/** A confirmation message's subscription id and token, when the body is one. */
function confirmationOf(request: RelayRequest): { subscriptionId: string; token: string } | null {
  if (request.method !== 'POST' || request.body === null) return null;
  try {
    const body = JSON.parse(request.body) as { confirmationUrl?: unknown; confirmationToken?: unknown };
    if (
      typeof body.confirmationUrl !== 'string' ||
      typeof body.confirmationToken !== 'string' ||
      !URL.canParse(body.confirmationUrl)
    )
      return null;
    const id = /\/v1\/subscriptions\/([^/]+)\/confirm/.exec(new URL(body.confirmationUrl).pathname)?.[1];
    return id === undefined ? null : { subscriptionId: decodeURIComponent(id), token: body.confirmationToken };
  } catch {
    return null;
  }
}

/**
 * Confirms the subscriptions `listen --subscribe` made, with the token of the confirmation
 * message it forwarded. The message may arrive before the subscription's id is known (the
 * sandbox sends it as soon as the subscription exists), so whichever comes second confirms.
 */
class Confirmer {
  readonly #mine = new Set<string>();
  readonly #tokens = new Map<string, string>();

  constructor(
    private readonly client: SandboxClient,
    private readonly ctx: CliContext,
  ) {}

  expect(subscriptionId: string): Promise<void> {
    this.#mine.add(subscriptionId);
    return this.#confirm(subscriptionId);
  }

  seen(subscriptionId: string, token: string): Promise<void> {
    this.#tokens.set(subscriptionId, token);
    return this.#confirm(subscriptionId);
  }

  async #confirm(subscriptionId: string): Promise<void> {
    const token = this.#tokens.get(subscriptionId);
    if (!this.#mine.has(subscriptionId) || token === undefined) return;
    this.#tokens.delete(subscriptionId);
    const path = `/v1/subscriptions/${encodeURIComponent(subscriptionId)}/confirm?confirmationToken=${encodeURIComponent(token)}`;
    try {
      const { status, body } = await this.client.call<{ status?: string; error?: string }>('GET', path, undefined, {
        accept: [400],
      });
      if (status === 200) this.ctx.stdout(`confirmed subscription ${subscriptionId}\n`);
      // The local receiver confirmed it first, or a newer token replaced this one (a newer message follows).
      else if (body.error !== 'confirmation_token_used')
        this.ctx.stderr(
          `could not confirm subscription ${subscriptionId} with this token (${body.error ?? status}); waiting for the next confirmation message\n`,
        );
    } catch (error) {
      this.ctx.stderr(`could not confirm subscription ${subscriptionId}: ${(error as Error).message}\n`);
    }
  }
}

/** Locations named by --subscribe: ids as given, `all` for every location of the account. */
async function locationsToSubscribe(client: SandboxClient, given: string[]): Promise<string[]> {
  const named = given
    .flatMap((g) => g.split(','))
    .map((g) => g.trim())
    .filter((g) => g !== '');
  if (!named.includes('all')) return [...new Set(named)];
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await client.call<{ locations: { locationId: string }[]; pageCount: number }>(
      'GET',
      `/v1/locations?page=${page}&perPage=100`,
    );
    ids.push(...body.locations.map((l) => l.locationId));
    if (page >= body.pageCount) break;
  }
  return ids;
}

/** SIGINT, SIGTERM, or the end of the process that started this one (saying so): what ends `listen`. */
function untilStopped(ctx: CliContext): Promise<string> {
  const parentGone = ctx.untilParentGone().then((why) => {
    ctx.stderr(`${why}: stopping\n`);
    return 'parent gone';
  });
  return Promise.race([ctx.untilStopSignal(), parentGone]);
}

/** One `listen` run: its client, its relay connection, and the subscriptions it made (deleted at the end). */
class ListenRun {
  readonly #client: SandboxClient;
  readonly #confirmer: Confirmer;
  readonly #subscriptions: string[] = [];

  constructor(
    private readonly options: ListenOptions,
    private readonly ctx: CliContext,
  ) {
    this.#client = clientFor(options, ctx, 'receives the webhooks of');
    this.#confirmer = new Confirmer(this.#client, ctx);
  }

  /**
   * Opens the relay connection, printing a line per forwarded request and confirming the
   * subscriptions this run made. The relay a run before opened for this sandbox, account and name
   * is held again where this machine remembers it (RelayMemory), so the endpoint stays the same;
   * one the sandbox no longer knows is forgotten and a new one opened.
   */
  async open(stopSignal: Promise<string>): Promise<RelayForwarder> {
    const { baseUrl, apiKey } = resolveTarget(this.options, this.ctx.env);
    const name = this.options.name ?? 'default';
    const memory = RelayMemory.of(this.ctx.env);
    const remembered = await memory.recall(baseUrl, apiKey, name);
    if (remembered) {
      const forwarder = await this.#forwarder(remembered);
      const outcome = await Promise.race([forwarder.ready.then(() => null), forwarder.failed, stopSignal]);
      if (!(outcome instanceof SandboxError)) return forwarder;
      await forwarder.close();
      if (outcome.status !== 403 && outcome.status !== 404) throw cliErrorOf(outcome);
      await memory.forget(baseUrl, apiKey, name);
    }
    const forwarder = await this.#forwarder(undefined);
    await memory.remember(baseUrl, apiKey, name, forwarder.relay);
    return forwarder;
  }

  async #forwarder(relay: Relay | undefined): Promise<RelayForwarder> {
    const { ctx } = this;
    try {
      return await RelayForwarder.open(this.#client.http, {
        forwardTo: this.options.forwardTo,
        ...(this.options.name === undefined ? {} : { name: this.options.name }),
        ...(relay === undefined ? {} : { relay }),
        forwarded: (request, reply, latencyMs) => {
          const outcome = 'error' in reply ? `failed: ${reply.error}` : `${reply.status} (${latencyMs} ms)`;
          ctx.stdout(`${describeRequest(request)} -> ${outcome}\n`);
        },
        done: async (request) => {
          const confirmation = confirmationOf(request);
          if (confirmation) await this.#confirmer.seen(confirmation.subscriptionId, confirmation.token);
        },
        replyFailed: (_request, error) => ctx.stderr(`could not return the answer to the sandbox: ${error.message}\n`),
        disconnected: (why, delayMs) =>
          ctx.stderr(`lost the connection to the sandbox (${why}); connecting again in ${delayMs / 1000} s\n`),
        reconnected: () => ctx.stderr('reconnected to the sandbox\n'),
      });
    } catch (error) {
      throw cliErrorOf(error);
    }
  }

  /** Subscribes the locations of --subscribe to the relay endpoint; each is confirmed once its confirmation message passes. */
  async subscribe(endpoint: string): Promise<void> {
    for (const locationId of await locationsToSubscribe(this.#client, this.options.subscribe ?? [])) {
      const { body } = await this.#client.call<{ subscriptionId: string; status: string }>(
        'POST',
        `/v1/locations/${encodeURIComponent(locationId)}/subscriptions`,
        { endpoint },
      );
      this.#subscriptions.push(body.subscriptionId);
      this.ctx.stdout(`subscribed location ${locationId}: subscription ${body.subscriptionId} (${body.status})\n`);
      if (body.status === 'pending') await this.#confirmer.expect(body.subscriptionId);
    }
  }

  /** Deletes the subscriptions this run made (one already gone is fine). */
  async unsubscribe(): Promise<void> {
    for (const subscriptionId of this.#subscriptions) {
      try {
        await this.#client.call('DELETE', `/v1/subscriptions/${encodeURIComponent(subscriptionId)}`, undefined, {
          accept: [404],
        });
        this.ctx.stdout(`deleted subscription ${subscriptionId}\n`);
      } catch (error) {
        this.ctx.stderr(`could not delete subscription ${subscriptionId}: ${(error as Error).message}\n`);
      }
    }
  }

  /**
   * Once the relay is ready: subscribes, then waits for a stop or for the connection to fail for
   * good. Returns the error `listen` ends with, or null for a stop.
   */
  async serve(forwarder: RelayForwarder, stopSignal: Promise<string>): Promise<CliError | null> {
    const failed = forwarder.failed.then((error) => cliErrorOf(error) as CliError);
    const stopOrFail = Promise.race([stopSignal.then(() => null), failed]);
    const early = await Promise.race([forwarder.ready.then(() => undefined), stopOrFail]);
    if (early !== undefined) return early;
    this.ctx.stdout(
      `Ready. Webhooks sent to ${forwarder.endpoint} are forwarded to ${this.options.forwardTo} (Ctrl-C to stop)\n`,
    );
    try {
      await this.subscribe(forwarder.endpoint);
      return await stopOrFail;
    } catch (error) {
      return error instanceof CliError ? error : new CliError((error as Error).message);
    }
  }
}

/**
 * `listen --forward-to <url>`: holds one connection to the sandbox (server-sent events, and a
 * POST per answer), forwards every webhook sent to the relay endpoint to <url>, and sends the
 * local answer back. Reconnects when the connection drops. With --subscribe, subscribes the
 * locations to the relay endpoint, confirms them, and deletes them on SIGINT or SIGTERM, or when
 * the process that started it ends.
 */
export async function listen(options: ListenOptions, ctx: CliContext): Promise<number> {
  if (!URL.canParse(options.forwardTo) || !/^https?:$/.test(new URL(options.forwardTo).protocol)) {
    throw new CliError(
      `--forward-to must be an http or https URL such as http://localhost:3000/webhooks; got ${JSON.stringify(options.forwardTo)}`,
      2,
    );
  }
  const { baseUrl, apiKey } = resolveTarget(options, ctx.env);
  if (isSharedKey(apiKey) && (await sandboxIsHosted(baseUrl))) {
    throw new CliError(
      `${baseUrl} is a hosted sandbox: listen needs the key of an account of your own, or it would receive (and answer) the webhooks of the demo account, which everyone who uses this sandbox shares. Create one with water-sandbox accounts create --sandbox ${baseUrl}, then pass its key as --api-key or WATER_API_KEY`,
      2,
    );
  }
  const run = new ListenRun(options, ctx);
  const stopSignal = untilStopped(ctx);
  const forwarder = await run.open(stopSignal);
  const result = await run.serve(forwarder, stopSignal);
  await forwarder.close();
  await run.unsubscribe();
  if (result) throw result;
  return 0;
}
