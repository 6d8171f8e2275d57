/**
 * The presenter view's answers as its page (src/demo/client) reads them: the types of the zod
 * schemas that document them. Types only (the lint enforces it): the page's bundle imports this
 * file, and nothing of the server may reach it.
 */
import type { z } from 'zod';

import type { DemoLink, DemoScene, DemoStory } from './operations.js';

export type Scene = z.output<typeof DemoScene>;
export type StoryView = z.output<typeof DemoStory>;
export type Card = Scene['cards'][number];
export type PhoneNotification = Scene['phone']['notifications'][number];
export type Link = z.output<typeof DemoLink>;
