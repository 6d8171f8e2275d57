import { z } from 'zod';

import { DEMO } from '../http/demo-examples.js';
import { operationsTagged } from '../http/operation.js';
import { examplePage, NO_SUCH_LOCATION, pageEnvelope, pagingQuery } from '../http/schemas.js';
import { Location, LocationUpdate } from './schemas.js';

// Production's capture of GET /v1/locations shows perPage 50 when none is asked for.
export const DEFAULT_LOCATIONS_PER_PAGE = 50;

const operation = operationsTagged('Locations', 'account');

const exampleLocation = {
  locationId: DEMO.locationId,
  name: DEMO.locationName,
  homeAway: 'home',
  devices: [{ deviceId: DEMO.deviceId, type: 'monitor', connected: true, calibrated: true }],
  alerts: [],
  subscriptionIds: [],
};

export const LocationList = pageEnvelope('locations', Location).meta({
  description: "A page of the account's locations.",
});

export const listLocationsOp = operation('listLocations', 'GET /v1/locations', {
  summary: "The account's locations",
  query: z.object(pagingQuery(DEFAULT_LOCATIONS_PER_PAGE)),
  responses: {
    200: {
      description: 'A page of locations.',
      schema: LocationList,
      example: examplePage('locations', [
        exampleLocation,
        {
          ...exampleLocation,
          locationId: 'ed22d088-2285-45a2-b37d-5419dc8232ea',
          name: 'Lakeside Cabin',
          devices: [
            { deviceId: 'eb22745a-94ee-4d5d-96a3-42216e34d97e', type: 'monitor', connected: true, calibrated: true },
          ],
        },
      ]),
    },
  },
  errors: { 400: 'invalid_parameter: page or perPage is not valid (page 1 or more, perPage 1 to 100).' },
});

export const getLocationOp = operation('getLocation', 'GET /v1/locations/{locationId}', {
  summary: 'One location',
  responses: { 200: { description: 'The location.', schema: Location, example: exampleLocation } },
  errors: { 404: "not_found: no such location in this account (another account's id and a malformed id are 404 too)." },
});

export const updateLocationOp = operation('updateLocation', 'PUT /v1/locations/{locationId}', {
  summary: 'Set home or away',
  description:
    'Only homeAway is writable; any other field is a 400 naming it. In away mode any flow raises the awayLeak alert.',
  body: { schema: LocationUpdate, required: true, example: { homeAway: 'away' } },
  responses: {
    200: { description: 'The updated location.', schema: Location, example: { ...exampleLocation, homeAway: 'away' } },
  },
  errors: {
    400: 'invalid_parameter: the body is not {"homeAway": "home" | "away"}.',
    404: NO_SUCH_LOCATION,
  },
});

export const locationsOperations = [listLocationsOp, getLocationOp, updateLocationOp];
