// Status causes as the apiserver sends them (a body recorded from kube-apiserver 1.37: a create into a namespace
// being deleted), and which 403s are refusals of the caller's role rather than a namespace going away.
import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../../../shared/kube/errors.js';
import { hasStatusCause, isAccessDenied, NAMESPACE_TERMINATING } from '../../../../shared/kube/events/status-cause.js';

const TERMINATING = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'configmaps "new" is forbidden: unable to create new content in namespace ns because it is being terminated',
  reason: 'Forbidden',
  details: {
    name: 'new',
    kind: 'configmaps',
    causes: [
      { reason: 'NamespaceTerminating', message: 'namespace ns is being terminated', field: 'metadata.namespace' },
    ],
  },
  code: 403,
});

const RBAC = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'secrets is forbidden: User "system:serviceaccount:fleetq-system:fleetq-handler" cannot list resource "secrets" in API group "" in the namespace "ns"',
  reason: 'Forbidden',
  details: { kind: 'secrets' },
  code: 403,
});

const apiError = (code: number, body: string) =>
  new ApiError(code, 'POST', '/api/v1/namespaces/ns/x', 'Forbidden', body);

describe('status causes', () => {
  it.each([
    { name: 'namespace terminating', err: apiError(403, TERMINATING), terminating: true, denied: false },
    { name: 'RBAC refusal', err: apiError(403, RBAC), terminating: false, denied: true },
    { name: 'a 403 without a Status body', err: apiError(403, 'forbidden'), terminating: false, denied: true },
    { name: 'a 409', err: apiError(409, '{}'), terminating: false, denied: false },
    { name: 'not an ApiError', err: new Error('x'), terminating: false, denied: false },
  ])('$name', ({ err, terminating, denied }) => {
    expect(hasStatusCause(err, NAMESPACE_TERMINATING)).toBe(terminating);
    expect(isAccessDenied(err)).toBe(denied);
  });
});
