import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { ApiError, isUnreachable } from '../../../shared/kube/errors.js';
import {
  WatchStatusError,
  isExpiredError,
  outcomeOfDone,
  outcomeOfStatus,
} from '../../../shared/forwarder/watch-errors.js';

describe('outcomeOfStatus (ERROR watch events)', () => {
  it.each([
    {
      name: '410 Expired',
      status: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (812)' },
      want: 'expired',
    },
    { name: '410 Gone without a reason', status: { code: 410 }, want: 'expired' },
    { name: 'too old, by message only', status: { message: 'Too old resource version: 5 (9)' }, want: 'expired' },
    {
      name: 'too large (a checkpoint from another etcd)',
      status: { code: 504, reason: 'Timeout', message: 'Too large resource version: 99999, current: 812' },
      want: 'expired',
    },
    {
      name: 'too large, by cause only (apimachinery NewTooLargeResourceVersionError)',
      status: {
        code: 504,
        reason: 'Timeout',
        message: 'Timeout: request did not complete',
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
      },
      want: 'expired',
    },
    {
      name: 'a plain 504 Timeout',
      status: { code: 504, reason: 'Timeout', message: 'request timed out' },
      want: 'failed',
    },
    { name: 'causes not a list', status: { code: 504, details: { causes: 'x' } }, want: 'failed' },
    { name: 'null', status: null, want: 'failed' },
    { name: 'internal error', status: { code: 500, reason: 'InternalError', message: 'boom' }, want: 'failed' },
    { name: 'not a status', status: 'garbage', want: 'failed' },
  ])('$name → $want', ({ status, want }) => expect(outcomeOfStatus(status).kind).toBe(want));

  it('keeps code and reason of a failure', () => {
    const o = outcomeOfStatus({ code: 403, reason: 'Forbidden', message: 'no' });
    expect(o.kind === 'failed' && o.error).toEqual(expect.any(WatchStatusError));
    expect(o.kind === 'failed' && (o.error as WatchStatusError).code).toBe(403);
  });
});

describe('outcomeOfDone (the watch stream closed)', () => {
  const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  const http410 = Object.assign(new Error('Gone'), { statusCode: 410 });
  it.each([
    { name: 'closed by the server', err: null, want: 'ended' },
    { name: 'inactivity timeout', err: timeout, want: 'ended' },
    { name: 'HTTP 410', err: http410, want: 'expired' },
    { name: 'connection refused', err: new TypeError('fetch failed'), want: 'failed' },
  ])('$name → $want', ({ err, want }) => expect(outcomeOfDone(err, 0, 10).kind).toBe(want));
});

describe('isExpiredError (list calls)', () => {
  it('knows a 410 ApiException, and a 410 status in its body', () => {
    expect(isExpiredError(new ApiException(410, 'Gone', '', {}))).toBe(true);
    expect(isExpiredError(new ApiException(500, 'x', JSON.stringify({ code: 410, reason: 'Expired' }), {}))).toBe(true);
    expect(isExpiredError(new ApiException(404, 'x', '{}', {}))).toBe(false);
    expect(isExpiredError(new Error('x'))).toBe(false);
  });

  it("knows the REST client's 410 (an expired continue token of a raw list), and a 410 status in its body", () => {
    const expired = JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'continue expired' });
    expect(isExpiredError(new ApiError(410, 'GET', '/api/v1/pods', 'Expired', expired))).toBe(true);
    expect(isExpiredError(new ApiError(500, 'GET', '/api/v1/pods', 'x', expired))).toBe(true);
    expect(isExpiredError(new ApiError(404, 'GET', '/api/v1/pods', 'NotFound', '{}'))).toBe(false);
    expect(isExpiredError(new ApiError(500, 'GET', '/api/v1/pods', 'x', 'not json'))).toBe(false);
  });
});

describe('isUnreachable', () => {
  it('finds a network code anywhere in the cause chain', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(isUnreachable(refused)).toBe(true);
    expect(isUnreachable(Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }))).toBe(true);
    expect(isUnreachable(new ApiException(500, 'x', '', {}))).toBe(false);
    expect(isUnreachable(undefined)).toBe(false);
  });
});
