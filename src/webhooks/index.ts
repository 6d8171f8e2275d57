/** What other features use of webhooks. */
export { deliveriesPage, deliveryAnswer, presentLogged, redeliverAnswer, type DeliveriesDeps } from './answers.js';
export { ATTEMPT_HEADER, DELIVERY_ID_HEADER, Dispatcher, type DispatcherOptions } from './dispatcher.js';
export type { RecordedAttempt } from './attempt-log.js';
export { redeliveryOf, SUBSCRIPTION_DELETED_NOTE, type NewDelivery } from './delivery-transitions.js';
export { deliveriesSandboxRouter } from './routes.js';
export { presentDelivery } from './presenter.js';
export {
  Delivery,
  DeliveryAttempt,
  getDeliveryOp,
  listDeliveriesOp,
  redeliverOp,
  webhooksOperations,
  type DeliveryView,
} from './operations.js';
export {
  ADDRESS_RULE,
  AddressGuard,
  judgeAddress,
  systemResolve,
  type AddressRefusal,
  type Resolve,
  type ResolvedAddress,
} from './address-policy.js';
export {
  createWebhookSender,
  describeAnswerBody,
  headersOf,
  HIDDEN,
  hideSecrets,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookSender,
} from './sender.js';
