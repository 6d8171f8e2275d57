import { readLuaFile } from './lua-files.js';

/**
 * The Lua scripts of the Redis store. Each runs atomically in Redis, so a change of one account
 * (its document, its index keys, its deliveries and its due hint) is applied whole or not at
 * all, whichever replica sends it. Every script gets the key prefix as ARGV[1] and, for the
 * per-account ones, the account id as ARGV[2]; it builds its keys from them (see keys.ts), since
 * the index keys it touches depend on the document. That ties the store to one Redis (or a
 * primary with replicas and Sentinel), not Redis Cluster, which a sandbox does not need.
 *
 * Values arrive as strings and are written as strings: Lua numbers are doubles, and cjson would
 * re-encode JSON with 14 significant digits and `{}` for empty arrays, so no script encodes
 * JSON; they only decode the small argument objects made by the TypeScript side.
 *
 * Each script is a file of lua/ (its arguments and answer described at its top), read once, when
 * this module loads: header.lua, then helpers.lua for the scripts that change accounts and
 * deliveries, then the script's own file. `luacheck` lints them and every one is loaded into a
 * real Redis in `npm run test:redis` (test/store/redis-lua.redis.test.ts).
 */

export interface LuaScript {
  readonly name: string;
  readonly source: string;
}

const HEADER = readLuaFile('header');
const HELPERS = readLuaFile('helpers');

/** The script of lua/<name>.lua, after the header and, where it `uses` them, the helpers. */
const script = (name: string, uses: 'helpers' | 'header' = 'header'): LuaScript => ({
  name,
  source: [HEADER, ...(uses === 'helpers' ? [HELPERS] : []), readLuaFile(name)].join('\n'),
});

export const CREATE_ACCOUNT = script('create-account', 'helpers');
export const UPDATE_ACCOUNT = script('update-account', 'helpers');
export const DELETE_ACCOUNT = script('delete-account', 'helpers');
export const OWNER_VERSION = script('owner-version');
export const TOUCH_ACCOUNT = script('touch-account');
export const LIST_ACCOUNTS = script('list-accounts');
export const ADD_DELIVERIES = script('add-deliveries', 'helpers');
export const CHANGE_DELIVERIES = script('change-deliveries', 'helpers');
export const DUE_DELIVERIES = script('due-deliveries');
export const CLAIM_DELIVERY = script('claim-delivery');
export const RELEASE_DELIVERY = script('release-delivery');
export const LIST_DELIVERIES = script('list-deliveries');
export const CLEAR_DELIVERIES = script('clear-deliveries', 'helpers');
export const REMOVE_DELIVERIES = script('remove-deliveries', 'helpers');
export const QUEUE_STATS = script('queue-stats');
export const APPEND_JOURNAL = script('append-journal');
export const INCREMENT_COUNTER = script('increment-counter');
export const DECREMENT_COUNTER = script('decrement-counter');
export const INCREMENT_IN_WINDOW = script('increment-in-window');
export const SET_IF_ABSENT = script('set-if-absent');
export const LOCK_HOLDER = script('lock-holder');
export const SESSION_USED = script('session-used');
