import type { Logger } from '../core/logger.js';
import type { DeliveryAttempt, DeliveryKind, DeliveryState } from '../store/data.js';
import { ADDRESS_RULE, type AddressRefusal } from './address-policy.js';

/** An attempt as recorded: `state` is the delivery's state after it (pending: a retry is scheduled). */
export interface RecordedAttempt {
  accountId: string;
  kind: DeliveryKind;
  state: DeliveryState;
  ok: boolean;
  latencyMs: number;
  /** The address range that BLOCK_PRIVATE_ENDPOINTS refused (the attempt sent nothing), if it did. */
  blockedRange?: string;
}

/** One webhook attempt in the log: info when delivered cleanly, a warning otherwise (refused, failed, or with warnings). */
export function logAttempt(
  logger: Logger,
  fields: Readonly<Record<string, unknown>> & Pick<DeliveryAttempt, 'warnings'>,
  ok: boolean,
  blocked: AddressRefusal | undefined,
): void {
  if (blocked)
    logger.warn('webhook attempt refused: the endpoint is not a public address', {
      ...fields,
      rule: ADDRESS_RULE,
      range: blocked.range,
      address: blocked.address,
    });
  else if (ok && fields.warnings.length === 0) logger.info('webhook attempt', fields);
  else logger.warn(ok ? 'webhook attempt delivered with warnings' : 'webhook attempt failed', fields);
}
