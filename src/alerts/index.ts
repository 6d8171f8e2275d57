/** What other features use of alerts. */
export { endAlertAnswer, startAlertAnswer } from './answers.js';
export { alertNotification, isShownActive, presentAlert } from './presenter.js';
export { alertsOperations, endAlertOp, startAlertOp } from './operations.js';
export { AlertNotification, AlertStarted, PublicAlert, SandboxAlert } from './schemas.js';
export { ALERT_TYPE_SPECS, ALERT_TYPES } from './rules.js';
export { alertsSandboxRouter } from './routes.js';
export { endAlert, startAlert, type AlertsDeps, type StartAlertInput } from './service.js';
