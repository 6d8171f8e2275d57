/** What other features use of the account clocks. */
export {
  accountMsAt,
  accountNow,
  accountNowMs,
  clockState,
  setAccountFrozen,
  setAccountNow,
  setRealTime,
  type ClockState,
} from './account-clock.js';
export { CLOCK_CHANGE_EXAMPLE, ClockChangeBody, type ClockChange } from './clock-request.js';
export { changeAccountClock, timeLockOf, type DueWork, type TimeTravelDeps } from './time-travel.js';
