import type { DeliveryKind } from '../store/data.js';
import type { WebhookResponse } from './sender.js';

export const NOT_JSON_WARNING = 'the answer was 2xx but its body is not JSON; production requires JSON answers';

export interface Assessment {
  ok: boolean;
  error: string | null;
  warnings: string[];
}

/**
 * Judges one answer. A 2xx is a success (a non-JSON body only adds a warning). The receiver
 * check and the confirmation also explain failures in terms of production's rule that the
 * endpoint must answer both GET and POST with valid JSON.
 */
export function assessAnswer(kind: DeliveryKind, method: 'GET' | 'POST', response: WebhookResponse): Assessment {
  // Refused before anything was sent: the refusal is the whole story.
  if (response.blocked) return { ok: false, error: response.error, warnings: [] };
  const status = response.statusCode;
  const ok = status !== null && status >= 200 && status < 300;
  const warnings: string[] = [];
  if (ok && !response.bodyIsJson) {
    warnings.push(
      kind === 'receiver_check'
        ? `GET answered ${status} but its body is not JSON: production requires the endpoint to answer GET with JSON`
        : NOT_JSON_WARNING,
    );
  }
  if (!ok && (kind === 'receiver_check' || kind === 'confirmation')) {
    const answer = status === null ? `got no answer (${response.error ?? 'no response'})` : `answered ${status}`;
    warnings.push(`${method} ${answer}: production requires the endpoint to answer ${method} with 2xx and a JSON body`);
  }
  return {
    ok,
    error: ok
      ? null
      : (response.error ??
        (status === null
          ? 'no response'
          : `HTTP ${status}${status >= 300 && status < 400 ? ': redirects are not followed' : ''}`)),
    warnings,
  };
}
