// Structured logs: one JSON object per line on stderr, a constant message and the data in fields.
// Per-key context is added with appendKeys() and cleared with resetKeys() (the Powertools Logger
// interface, without its Lambda-only output format: it writes no line breaks outside Lambda).
// Every line goes through redact-secrets.ts first: credentials in messages, error texts and URLs are hidden,
// and fields named like secrets (password, authorization, client keys, …) are replaced, at any depth.
import { errorShape, redactText, redactValue } from '../kube/redact-secrets.js';

export const LogLevel = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevelName = keyof typeof LogLevel;

export type LogSink = (line: string) => void;

export class Logger {
  private keys: Record<string, unknown> = {};
  private readonly threshold: number;

  constructor(
    readonly service: string,
    level: string = process.env.LOG_LEVEL ?? 'info',
    private readonly sink: LogSink = (line) => process.stderr.write(line + '\n'),
  ) {
    this.threshold = LogLevel[level.toLowerCase() as LogLevelName] ?? LogLevel.info;
  }

  appendKeys(keys: Record<string, unknown>): void {
    this.keys = { ...this.keys, ...keys };
  }

  resetKeys(): void {
    this.keys = {};
  }

  /** A logger that shares this one's output and adds fixed keys (e.g. one per cluster). */
  child(keys: Record<string, unknown>): Logger {
    const c = new Logger(this.service, levelName(this.threshold), this.sink);
    c.keys = { ...this.keys, ...keys };
    return c;
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  private write(level: LogLevelName, message: string, fields?: Record<string, unknown>): void {
    if (LogLevel[level] < this.threshold) return;
    const entry = {
      level,
      time: new Date().toISOString(),
      service: this.service,
      message: redactText(message),
      ...(redactValue(this.keys) as Record<string, unknown>),
      ...serialize(fields),
    };
    this.sink(JSON.stringify(entry));
  }
}

function levelName(threshold: number): LogLevelName {
  return (Object.keys(LogLevel) as LogLevelName[]).find((k) => LogLevel[k] === threshold) ?? 'info';
}

function serialize(fields?: Record<string, unknown>): Record<string, unknown> {
  if (!fields) return {};
  return redactValue(fields) as Record<string, unknown>;
}

/** An error's fields for a log line (name, message, code, cause), credentials hidden. */
export function errorFields(err: unknown): Record<string, unknown> {
  return redactValue(errorShape(err)) as Record<string, unknown>;
}
