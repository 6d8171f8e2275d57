import { html, htmlDocument, type SafeHtml } from '../http/html.js';
import type { DemoPageConfig } from './page-config.js';
import { STORY_SPEEDS } from './page-config.js';
import type { Scene } from './scene.js';

export interface DemoPageView {
  config: DemoPageConfig;
  /** The scene now: the page draws it at once, before its stream says anything. */
  scene: Scene;
  /** The URLs of the bundled script and style sheet. */
  script: string;
  style: string;
}

function presenterControls(config: Extract<DemoPageConfig, { role: 'presenter' }>, scene: Scene): SafeHtml {
  const current = scene.story?.scenario ?? config.storyAsked ?? config.stories[0]?.name ?? '';
  const speed = scene.story?.speed;
  return html`<footer class="controls" aria-label="Presenter controls">
  <div class="control-group" role="group" aria-label="Story">
    <label class="visually-hidden" for="story-choice">Story</label>
    <select id="story-choice">${config.stories.map(
      (s) => html`<option value="${s.name}"${s.name === current ? html` selected` : ''}>${s.title}</option>`,
    )}</select>
    <button type="button" id="play" class="primary" aria-keyshortcuts="Space">Play</button>
    <button type="button" id="next" aria-keyshortcuts="ArrowRight PageDown">Next step</button>
    <button type="button" id="restart">Restart</button>
    <label class="visually-hidden" for="speed">Speed</label>
    <select id="speed">${STORY_SPEEDS.map(
      (s) =>
        html`<option value="${String(s.speed)}"${s.speed === (speed ?? 2400) ? html` selected` : ''}>${s.label}</option>`,
    )}</select>
    <button type="button" id="end-story" class="quiet">End story</button>
  </div>
  <div class="control-group" role="group" aria-label="Audience">
    <label class="visually-hidden" for="prospect">Prospect</label>
    <input id="prospect" type="text" maxlength="60" autocomplete="off" placeholder="Prospect's name" title="The prospect's name, shown in the header and on the phone" value="${scene.prospect}">
  </div>
  <p id="flash" role="status" aria-live="polite"></p>
</footer>
<dialog id="share-dialog" aria-labelledby="share-title">
  <h2 id="share-title">Share with the audience</h2>
  <p>A read-only link to this view, live: no sign-in, no controls. Each link ends 4 hours after it is made, or when you revoke it.</p>
  <ul id="links" class="links"></ul>
  <p id="share-status" role="status"></p>
  <div class="dialog-buttons"><button type="button" id="new-link" class="primary">New link</button><button type="button" id="close-share">Close</button></div>
</dialog>`;
}

/** Where the header says the home is: a choice of homes for the presenter, its name for the audience. */
function place(config: DemoPageConfig, scene: Scene): SafeHtml {
  if (config.role === 'audience') return html`<span id="place">${scene.location?.name ?? ''}</span>`;
  return html`<label class="visually-hidden" for="location-choice">Home shown</label><select id="location-choice">${config.locations.map(
    (l) =>
      html`<option value="${l.locationId}"${l.name === scene.location?.name ? html` selected` : ''}>${l.name}</option>`,
  )}</select>`;
}

/** The presenter's part of the header: Share, and the way back to the dashboard. */
const presenterHeader = (): SafeHtml => html`<div class="header-controls">
    <button type="button" id="share">Share</button>
    <a href="/">Dashboard</a>
  </div>`;

/**
 * The presenter view (and, without controls, the audience's): the server renders the structure
 * and the scene's words (escaped), the bundled script draws the chart and keeps it all live. No
 * inline script or style: the configuration and the first scene travel in escaped attributes.
 */
export function renderDemoPage(view: DemoPageView): string {
  const { config, scene } = view;
  const presenter = config.role === 'presenter';
  return htmlDocument({
    title: `${scene.prospect === '' ? '' : `${scene.prospect}: `}Water monitoring, live`,
    head: html`<link rel="stylesheet" href="${view.style}">
<script src="${view.script}" defer></script>`,
    body: html`<a class="skip" href="#stage">Skip to the demo</a>
<div class="demo" id="demo" data-role="${config.role}" data-config="${JSON.stringify(config)}" data-scene="${JSON.stringify(scene)}">
<header class="top">
  <h1><span class="brand" aria-hidden="true"></span>Water monitoring, live<span id="for-prospect" class="for">${scene.prospect === '' ? '' : html` for ${scene.prospect}`}</span></h1>
  <p class="where">${place(config, scene)} <span class="sep" aria-hidden="true">&middot;</span> <span id="now-text">${scene.now.text}</span> <span id="zone" class="zone">${scene.location?.zone ?? ''}</span></p>
  <span class="live" id="live" role="status" data-state="connecting">connecting</span>
  ${presenter ? presenterHeader() : ''}
</header>
<section class="story" id="story" aria-labelledby="story-title">
  <h2 id="story-title">${scene.story?.title ?? 'Live view'}</h2>
  <p class="caption" id="caption" aria-live="polite">${scene.story?.caption ?? scene.story?.premise ?? 'The home, the app and the phone, as they are now.'}</p>
  <ol class="steps" id="steps" aria-label="The story's steps"></ol>
</section>
<main class="stage" id="stage" tabindex="-1">
  <section class="pane home" id="home-pane" aria-labelledby="home-title">
    <h2 id="home-title">The home</h2>
    <div class="status"><span class="chip" id="home-away">${scene.location?.status ?? ''}</span><span class="chip" id="monitor">${scene.location?.monitor ?? ''}</span></div>
    <div class="flow"><span class="flow-label">Water flowing now</span><strong class="flow-value" id="flow">${scene.flow.text}</strong><span class="flow-detail" id="flow-detail">${scene.flow.detail}</span></div>
    <figure class="chart-figure"><div class="chart" id="chart"></div><figcaption class="chart-caption" id="chart-caption">${scene.chart.summary}</figcaption></figure>
  </section>
  <section class="pane partner" id="partner-pane" aria-labelledby="partner-title">
    <h2 id="partner-title">What <span id="partner-name">${scene.prospect === '' ? 'your app' : scene.prospect}</span> receives</h2>
    <ol class="cards" id="cards" aria-live="polite"></ol>
  </section>
  <section class="pane phone-pane" id="phone-pane" aria-labelledby="phone-title">
    <h2 id="phone-title">The customer's phone</h2>
    <div class="phone" role="group" aria-label="Phone screen">
      <div class="phone-bar"><span id="phone-time"></span></div>
      <ul class="notifications" id="notifications" aria-live="polite"></ul>
      <p class="phone-note" id="phone-note"></p>
    </div>
  </section>
</main>
${presenter ? presenterControls(config, scene) : html`<footer class="audience-note"><p>A live view shared by the presenter: read only. <span id="link-ends">This link ends ${config.expiresText}.</span></p></footer>`}
</div>
<dialog id="raw-dialog" aria-labelledby="raw-title">
  <h2 id="raw-title">The request as sent</h2>
  <p class="lead">What the endpoint received, exactly: the headers and the JSON production sends.</p>
  <pre id="raw-request"></pre>
  <div class="dialog-buttons"><button type="button" id="close-raw">Close</button></div>
</dialog>`,
  });
}
