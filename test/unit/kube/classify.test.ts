// How a failed reconcile is classified: what is retried with backoff and what is dead-lettered.
import { describe, expect, it } from '@jest/globals';
import { ApiError, classify } from '../../../shared/kube/errors.js';

const PATH = '/apis/apps/v1/namespaces/ns/statefulsets/web';

function classified(code: number, method: string, path: string) {
  const e = classify(new ApiError(code, method, path, 'Invalid', '{}'), 'reconcile');
  return { code: e.code, retryable: e.retryable };
}

describe('classify', () => {
  it('a status write refused as invalid is retried (a transient status, as upstream requeues it)', () => {
    expect(classified(422, 'PUT', `${PATH}/status`)).toEqual({ code: 'Invalid', retryable: true });
    expect(classified(422, 'PATCH', `${PATH}/status?fieldManager=fleetq`)).toEqual({
      code: 'Invalid',
      retryable: true,
    });
  });

  it('any other write refused as invalid or malformed is dead-lettered', () => {
    expect(classified(422, 'PUT', PATH)).toEqual({ code: 'Invalid', retryable: false });
    expect(classified(422, 'POST', '/api/v1/namespaces/ns/pods')).toEqual({ code: 'Invalid', retryable: false });
    expect(classified(400, 'PUT', `${PATH}/status`)).toEqual({ code: 'Invalid', retryable: false });
  });

  it('a conflict is retried as Conflict; another API error is retried', () => {
    expect(classified(409, 'PUT', `${PATH}/status`)).toEqual({ code: 'Conflict', retryable: true });
    expect(classified(500, 'GET', PATH)).toEqual({ code: 'ApiError', retryable: true });
  });
});
