/** What other features use of alerts. */
export { alertNotification, isShownActive, presentAlert, type AlertNotification, type PublicAlert } from './presenter.js';
export { ALERT_TYPE_SPECS, ALERT_TYPES } from './rules.js';
export { alertsSandboxRouter } from './routes.js';
export { endAlert, startAlert, type AlertsDeps, type StartAlertInput } from './service.js';
