import type { Request, Response, Router } from 'express';
import type { SessionData } from 'express-session';

import {
  createCsrf,
  loginSession,
  sendMessagePage,
  signedInUser,
  type SessionDeps,
  type UsersDeps,
} from '../auth/index.js';
import { AppError, conflict } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { loadDashboardAssets, sendDashboard, DASHBOARD_PATHS } from '../dashboard/index.js';
import { operationRouter } from '../http/operation.js';
import type { ReadingsService } from '../readings/index.js';
import type { AccountDoc, DeepReadonly, DemoLinkRecord } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { publishDemoEvent } from './events.js';
import type { DemoStreams } from './hub.js';
import { createLink, demoOf, ensureDemo, linkOfToken, liveLinks, revokeLink } from './links.js';
import {
  createLinkOp,
  demoEventsOp,
  demoPageOp,
  demoSceneOp,
  endStoryOp,
  listLinksOp,
  nextStepOp,
  pauseStoryOp,
  playStoryOp,
  restartStoryOp,
  revokeLinkOp,
  setDemoViewOp,
  setStorySpeedOp,
  startStoryOp,
  tickStoryOp,
  watchEventsOp,
  watchPageOp,
  watchSceneOp,
} from './operations.js';
import {
  DEFAULT_STORY_SPEED,
  DEMO_PATHS,
  MAX_PROSPECT_LENGTH,
  spokenDuration,
  type DemoPageConfig,
} from './page-config.js';
import { renderDemoPage } from './page.js';
import { buildScene, type Scene } from './scene.js';
import { presentStory, type StoryView } from './story-view.js';
import {
  endStory,
  nextStep,
  pauseStory,
  playStory,
  restartStory,
  setStorySpeed,
  startStory,
  tickStory,
  type StoryDeps,
} from './story.js';
import { clockTime, zoneName } from './words.js';

export interface DemoDeps extends StoryDeps, SessionDeps, UsersDeps {
  readings: ReadingsService;
  demoStreams: DemoStreams;
  logger: Logger;
  config: StoryDeps['config'] &
    SessionDeps['config'] & {
      readonly limits: { readonly demoLinks: number };
    };
  /** Where the bundled browser code is; dist/dashboard-assets by default. */
  dashboardAssetsDir?: string;
}

/** The CSRF purpose of the presenter page's changes (sent in X-CSRF-Token). */
const DEMO_PAGE = 'demo page';

const assetUrl = (name: string): string => `${DASHBOARD_PATHS.assets}${name}`;

/**
 * GET /demo, the presenter view, and what its page calls: signed in like the dashboard (the same
 * login session, its own CSRF token for changes, no access token, so nothing of it expires when
 * a story moves the account clock by hours); and /demo/watch/{token}, the audience's, read only.
 * SANDBOX: production serves no page on the API host; this one demos the sandbox to a prospect.
 */
export function demoRouter(deps: DemoDeps): Router {
  const api = operationRouter('');
  const session = loginSession(deps);
  const csrf = createCsrf(deps);
  const assets = loadDashboardAssets(deps.dashboardAssetsDir);
  const processNowMs = (): number => deps.clock.now().getTime();

  /** The signed-in presenter: a 401 otherwise. */
  const presenterOf = async (req: Request): Promise<{ accountId: string; userId: string }> => {
    const user = await signedInUser(deps.store, req.session);
    if (!user)
      throw new AppError(
        401,
        'signed_out',
        'This browser is not signed in to the dashboard (any more); open /demo and sign in',
      );
    return user;
  };
  /** A change: the signed-in presenter, and the CSRF token of their page. */
  const changerOf = async (req: Request): Promise<string> => {
    const { accountId } = await presenterOf(req);
    if (!csrf.valid(req, DEMO_PAGE, req.get('x-csrf-token')))
      throw new AppError(
        403,
        'csrf_refused',
        "A change of the presenter view comes from its page only (X-CSRF-Token missing or not this browser session's); reload /demo",
      );
    return accountId;
  };
  const accountDoc = async (accountId: string): Promise<DeepReadonly<AccountDoc>> => {
    const doc = await deps.store.accounts.get(accountId);
    if (!doc) throw new AppError(404, 'not_found', 'This account no longer exists');
    return doc;
  };
  const sceneOf = async (accountId: string): Promise<Scene> => {
    const scene = await buildScene(deps, accountId);
    if (!scene) throw new AppError(404, 'not_found', 'This account no longer exists');
    return scene;
  };
  const storyOf = async (accountId: string): Promise<StoryView> => {
    const doc = await accountDoc(accountId);
    const location = doc.locations.find((l) => l.locationId === doc.demo?.story?.locationId);
    const story = presentStory(doc, deps.scenarios, location?.timeZone ?? 'UTC');
    if (!story) throw conflict('no_story', 'No story is loaded in the presenter view');
    return story;
  };
  /** The live link of a token, with its account: null for one that is unknown, expired or revoked (all a 404). */
  const linkOf = async (
    token: string,
  ): Promise<{ accountId: string; doc: DeepReadonly<AccountDoc>; link: DeepReadonly<DemoLinkRecord> } | null> => {
    const found = await deps.store.accounts.findByKey('demoLink', token);
    const link = found ? linkOfToken(found.doc, token, processNowMs()) : null;
    return found && link ? { ...found, link } : null;
  };
  const linkAnswer = (link: DeepReadonly<DemoLinkRecord>) => ({
    linkId: link.linkId,
    url: `${deps.urls.publicUrl}${DEMO_PATHS.watch}${link.token}`,
    createdAt: new Date(link.createdAtMs).toISOString(),
    expiresAt: new Date(link.expiresAtMs).toISOString(),
  });
  const notBuilt = (res: Response, missing: string): void =>
    sendMessagePage(deps, res, 503, {
      title: 'Presenter view not built',
      message: `The page's browser code is not built (${missing}). Run npm run build, then start the sandbox again.`,
      note: 'Water sandbox presenter view.',
    });

  api.handle(
    demoPageOp,
    async ({ query }, req, res) => {
      const user = await signedInUser(deps.store, req.session);
      if (!user) {
        // The dashboard's sign-in, which comes back here.
        res.set('Cache-Control', 'no-store').redirect(303, `/?next=${encodeURIComponent(req.originalUrl)}`);
        return;
      }
      if ('missing' in assets) {
        notBuilt(res, assets.missing);
        return;
      }
      const asked = query();
      const doc = await accountDoc(user.accountId);
      const config: DemoPageConfig = {
        role: 'presenter',
        csrfToken: csrf.token(req, res, DEMO_PAGE),
        stories: [...deps.scenarios.values()].map((s) => ({
          name: s.name,
          title: s.title ?? s.name,
          premise: s.premise ?? '',
          steps: s.steps.length,
        })),
        locations: doc.locations.map((l) => ({ locationId: l.locationId, name: l.name })),
        prospectAsked: asked.prospect === undefined ? null : asked.prospect.trim().slice(0, MAX_PROSPECT_LENGTH),
        storyAsked: asked.story !== undefined && deps.scenarios.has(asked.story) ? asked.story : null,
      };
      sendDashboard(
        res,
        renderDemoPage({
          config,
          scene: await sceneOf(user.accountId),
          script: assetUrl(assets.demo.script),
          style: assetUrl(assets.demo.style),
        }),
      );
    },
    session,
  );

  api.handle(
    demoSceneOp,
    async (_input, req, res) => {
      const { accountId } = await presenterOf(req);
      res.set('Cache-Control', 'no-store').json(await sceneOf(accountId));
    },
    session,
  );

  api.handle(
    demoEventsOp,
    async (_input, req, res) => {
      const { accountId } = await presenterOf(req);
      const sessionId = req.sessionID;
      // Stored sessions include ones without a sign-in (no userId), whatever SessionData says.
      const signedIn = (): Promise<boolean> =>
        new Promise((resolve) =>
          deps.store.sessions.get(sessionId, (error, data: Partial<SessionData> | null | undefined) =>
            resolve(!error && data?.accountId === accountId && data.userId !== undefined),
          ),
        );
      await deps.demoStreams.open(accountId, res, {
        stillAllowed: async () =>
          (await signedIn()) ? { allowed: true } : { allowed: false, reason: 'You are signed out.' },
      });
    },
    session,
  );

  api.handle(
    setDemoViewOp,
    async ({ body }, req, res) => {
      const accountId = await changerOf(req);
      const { prospect, locationId } = body();
      const view = await deps.store.accounts.update(accountId, (d) => {
        const demo = ensureDemo(d);
        if (locationId !== undefined) {
          findLocation(d, locationId);
          if (demo.story && demo.story.locationId !== locationId)
            throw conflict(
              'story_loaded',
              'A story plays at another home; end it (DELETE /demo/story) before showing this one',
            );
          demo.locationId = locationId;
        }
        if (prospect !== undefined) demo.prospect = prospect;
        return { prospect: demo.prospect, locationId: demo.locationId };
      });
      await publishDemoEvent(deps.store, accountId, { type: 'changed' });
      res.json(view);
    },
    session,
  );

  api.handle(
    startStoryOp,
    async ({ body }, req, res) => {
      const accountId = await changerOf(req);
      const { scenario, locationId, speed } = body();
      const doc = await accountDoc(accountId);
      const demo = demoOf(doc);
      const shown = locationId ?? demo.locationId ?? doc.locations[0]?.locationId;
      if (shown === undefined) throw new AppError(404, 'not_found', 'This account has no location to play a story at');
      await startStory(deps, accountId, { scenario, locationId: shown, speed: speed ?? DEFAULT_STORY_SPEED });
      res.status(201).json(await storyOf(accountId));
    },
    session,
  );

  const actions = [
    [playStoryOp, playStory],
    [pauseStoryOp, pauseStory],
    [tickStoryOp, tickStory],
    [nextStepOp, nextStep],
    [restartStoryOp, restartStory],
  ] as const;
  for (const [op, act] of actions) {
    api.handle(
      op,
      async ({ body }, req, res) => {
        const accountId = await changerOf(req);
        body();
        await act(deps, accountId);
        res.json(await storyOf(accountId));
      },
      session,
    );
  }

  api.handle(
    setStorySpeedOp,
    async ({ body }, req, res) => {
      const accountId = await changerOf(req);
      await setStorySpeed(deps, accountId, body().speed);
      res.json(await storyOf(accountId));
    },
    session,
  );

  api.handle(
    endStoryOp,
    async (_input, req, res) => {
      const accountId = await changerOf(req);
      await endStory(deps, accountId);
      res.json({ story: null });
    },
    session,
  );

  api.handle(
    listLinksOp,
    async (_input, req, res) => {
      const { accountId } = await presenterOf(req);
      res.json({ links: liveLinks(await accountDoc(accountId), processNowMs()).map(linkAnswer) });
    },
    session,
  );

  api.handle(
    createLinkOp,
    async ({ body }, req, res) => {
      const accountId = await changerOf(req);
      body();
      const fresh = { linkId: deps.ids.secret(9), token: deps.ids.secret(32), nowMs: processNowMs() };
      const link = await deps.store.accounts.update(accountId, (d) =>
        createLink(d, fresh, deps.config.limits.demoLinks),
      );
      res.status(201).json(linkAnswer(link));
    },
    session,
  );

  api.handle(
    revokeLinkOp,
    async ({ params }, req, res) => {
      const accountId = await changerOf(req);
      const link = await deps.store.accounts.update(accountId, (d) => revokeLink(d, params.linkId, processNowMs()));
      await publishDemoEvent(deps.store, accountId, { type: 'link-revoked', linkId: link.linkId });
      res.json(linkAnswer(link));
    },
    session,
  );

  const unknownLink = (): AppError =>
    new AppError(404, 'not_found', 'No such audience link: it was never made, it expired, or the presenter revoked it');

  api.handle(watchPageOp, async ({ params }, _req, res) => {
    const found = await linkOf(params.token);
    if (!found) {
      sendMessagePage(deps, res.set('Referrer-Policy', 'no-referrer'), 404, {
        title: 'This demo link has ended',
        message:
          'This link to a live demo expired, was revoked by the presenter, or never existed. Ask the presenter for a new one.',
        note: 'Water monitoring sandbox: live demo.',
      });
      return;
    }
    if ('missing' in assets) {
      notBuilt(res, assets.missing);
      return;
    }
    const scene = await sceneOf(found.accountId);
    const zone = scene.location?.timeZone ?? 'UTC';
    const nowMs = processNowMs();
    const config: DemoPageConfig = {
      role: 'audience',
      token: params.token,
      expiresText: `at ${clockTime(found.link.expiresAtMs, zone)} ${zoneName(found.link.expiresAtMs, zone)}, in ${spokenDuration(found.link.expiresAtMs - nowMs)}`,
    };
    sendDashboard(
      res,
      renderDemoPage({
        config,
        scene,
        script: assetUrl(assets.demo.script),
        style: assetUrl(assets.demo.style),
      }),
    );
  });

  api.handle(watchSceneOp, async ({ params }, _req, res) => {
    const found = await linkOf(params.token);
    if (!found) throw unknownLink();
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).json(await sceneOf(found.accountId));
  });

  api.handle(watchEventsOp, async ({ params }, _req, res) => {
    const found = await linkOf(params.token);
    if (!found) throw unknownLink();
    const { linkId } = found.link;
    await deps.demoStreams.open(found.accountId, res, {
      linkId,
      stillAllowed: async () => {
        const still = await linkOf(params.token);
        return still?.link.linkId === linkId
          ? { allowed: true }
          : { allowed: false, reason: 'This link has ended: it expired or the presenter revoked it.' };
      },
    });
  });

  return api.done();
}
