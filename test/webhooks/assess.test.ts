import { assessAnswer, NOT_JSON_WARNING } from '../../src/webhooks/assess.js';
import type { WebhookResponse } from '../../src/webhooks/sender.js';

const answer = (statusCode: number | null, extra: Partial<WebhookResponse> = {}): WebhookResponse => ({
  statusCode,
  latencyMs: 3,
  error: null,
  responseExcerpt: '{}',
  bodyIsJson: true,
  ...extra,
});

describe('assessAnswer', () => {
  it.each([
    [199, false],
    [200, true],
    [204, true],
    [299, true],
    [300, false],
    [302, false],
    [308, false],
    [399, false],
    [400, false],
    [404, false],
    [500, false],
  ])('an alert answered %i is delivered: %s', (status, ok) => {
    const redirect = status >= 300 && status < 400 ? ': redirects are not followed' : '';
    expect(assessAnswer('alert', 'POST', answer(status))).toEqual({
      ok,
      error: ok ? null : `HTTP ${status}${redirect}`,
      warnings: [],
    });
  });

  it('a confirmation refused by BLOCK_PRIVATE_ENDPOINTS is that refusal only, without the advice about answering POST', () => {
    const error = 'blocked: vm resolves to 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)';
    const blocked = {
      host: 'vm',
      address: '127.0.0.1',
      range: 'loopback',
      reason: 'vm resolves to 127.0.0.1, a loopback address',
      message: error,
    };
    expect(
      assessAnswer('confirmation', 'POST', answer(null, { error, blocked, responseExcerpt: null, bodyIsJson: false })),
    ).toEqual({ ok: false, error, warnings: [] });
  });

  it('names the transport error when nothing came back', () => {
    expect(
      assessAnswer('alert', 'POST', answer(null, { error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' })),
    ).toEqual({
      ok: false,
      error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
      warnings: [],
    });
  });

  it('warns about a 2xx whose body is not JSON, and says GET for the receiver check', () => {
    expect(assessAnswer('alert', 'POST', answer(200, { bodyIsJson: false }))).toEqual({
      ok: true,
      error: null,
      warnings: [NOT_JSON_WARNING],
    });
    expect(assessAnswer('receiver_check', 'GET', answer(203, { bodyIsJson: false })).warnings).toEqual([
      'GET answered 203 but its body is not JSON: production requires the endpoint to answer GET with JSON',
    ]);
  });

  it.each(['confirmation', 'receiver_check'] as const)("explains a failed %s in terms of production's rule", (kind) => {
    expect(assessAnswer(kind, 'POST', answer(301)).warnings).toEqual([
      'POST answered 301: production requires the endpoint to answer POST with 2xx and a JSON body',
    ]);
    expect(assessAnswer(kind, 'GET', answer(null, { error: 'timed out after 10 ms' })).warnings).toEqual([
      'GET got no answer (timed out after 10 ms): production requires the endpoint to answer GET with 2xx and a JSON body',
    ]);
    expect(assessAnswer(kind, 'GET', answer(null)).warnings).toEqual([
      'GET got no answer (no response): production requires the endpoint to answer GET with 2xx and a JSON body',
    ]);
  });

  it('adds no explanation to a failed alert or token delivery', () => {
    expect(assessAnswer('alert', 'POST', answer(500)).warnings).toEqual([]);
    expect(assessAnswer('token', 'POST', answer(null, { error: 'boom' })).warnings).toEqual([]);
  });
});
