// Secret redaction lives in the bottom layer, shared/kube/redact-secrets.ts, since the cluster registry and the
// Redis connection use it; config.ts still reads it through this path.
export {
  REDACTED,
  MAX_TEXT,
  isSecretField,
  redactUrl,
  redactText,
  redactValue,
  errorShape,
} from '../kube/redact-secrets.js';
