import { z } from 'zod';

import { PublicAlert } from '../alerts/index.js';
import { jsonObject, quotedList } from '../http/schemas.js';

export const Device = z
  .strictObject({
    deviceId: z.string().meta({ description: 'The monitor id.' }),
    type: z.literal('monitor').meta({ description: '"monitor", the only documented type.' }),
    connected: z.boolean(),
    calibrated: z.boolean(),
  })
  .meta({ description: "A water monitor at a location: production's Device, exactly its keys." });

export const HomeAway = z.enum(['home', 'away']);

/** Production's Location object, exactly its keys. */
export const Location = z
  .strictObject({
    locationId: z.string().meta({ description: 'The location id (a UUID).' }),
    name: z.string(),
    homeAway: HomeAway.meta({ description: 'home, or away (the away-leak rule applies).' }),
    devices: z.array(Device),
    alerts: z.array(PublicAlert).meta({ description: 'The alerts active now.' }),
    subscriptionIds: z.array(z.string()).meta({ description: 'Ids of the subscriptions of this location.' }),
  })
  .meta({ description: "A location (home) of the account: production's Location, exactly its keys." });

export type PublicLocation = z.output<typeof Location>;

const HOME_AWAY_RULE = 'homeAway is required and must be "home" or "away"';

/** PUT /v1/locations/{locationId}: only homeAway is writable. */
export const LocationUpdate = jsonObject(
  {
    homeAway: z.enum(['home', 'away'], {
      error: (issue) =>
        issue.input === undefined
          ? HOME_AWAY_RULE
          : `homeAway must be "home" or "away"; got ${JSON.stringify(issue.input)}`,
    }),
  },
  {
    notObject: 'The request body must be a JSON object such as {"homeAway": "away"}',
    unknownKeys: (keys) => `Only homeAway can be changed on a location; remove ${quotedList(keys)}`,
  },
);
