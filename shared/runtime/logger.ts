// Structured logs: one JSON object per line on stderr, a constant message and the data in fields.
// Per-key context is added with appendKeys() and cleared with resetKeys() (the Powertools Logger
// interface, without its Lambda-only output format: it writes no line breaks outside Lambda).
// Every line goes through redact-secrets.ts first: credentials in messages, error texts and URLs are hidden,
// and fields named like secrets (password, authorization, client keys, …) are replaced, at any depth.
// On a terminal the same line is rendered for people by pino-pretty (`[12:00:01.234] INFO: Worker started
// {"driver":"redis"}`): when stderr is a TTY, or LOG_FORMAT=pretty; LOG_FORMAT=json keeps JSON on a terminal.
// In Lambda it is always JSON (CloudWatch reads it), and a logger given its own sink writes JSON unless told.
import { createRequire } from 'node:module';
import type { prettyFactory as PrettyFactory } from 'pino-pretty';
import { errorShape, redactText, redactValue } from '../kube/redact-secrets.js';

export const LogLevel = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevelName = keyof typeof LogLevel;

export type LogSink = (line: string) => void;

export const LogFormat = { json: 'json', pretty: 'pretty' } as const;
export type LogFormat = (typeof LogFormat)[keyof typeof LogFormat];

/** The default sink: stderr. */
const STDERR: LogSink = (line) => process.stderr.write(line + '\n');

/**
 * How lines are written: JSON in Lambda (its log format is read by CloudWatch) and when LOG_FORMAT=json;
 * rendered for people when LOG_FORMAT=pretty, or when unset and the output is a terminal.
 */
export function logFormat(env: NodeJS.ProcessEnv, isTTY: boolean): LogFormat {
  if ((env.AWS_LAMBDA_FUNCTION_NAME ?? '') !== '') return LogFormat.json;
  const asked = env.LOG_FORMAT?.toLowerCase();
  if (asked === LogFormat.json || asked === LogFormat.pretty) return asked;
  return isTTY ? LogFormat.pretty : LogFormat.json;
}

/** pino-pretty over one JSON line: `[HH:MM:ss.l] LEVEL: message {fields}`, coloured on a terminal. */
export function prettyLine(colorize: boolean): (line: string) => string {
  // Loaded only when asked for: processes that log JSON (Lambda) never load it.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as {
    prettyFactory: typeof PrettyFactory;
  };
  const pretty = prettyFactory({
    colorize,
    messageKey: 'message',
    timestampKey: 'time',
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'service',
    singleLine: true,
  });
  return (line) => pretty(JSON.parse(line) as Record<string, unknown>).replace(/\n$/, '');
}

export type LoggerOptions = {
  /** Default: logFormat(process.env, stderr is a TTY) with the default sink; JSON with a sink of one's own. */
  readonly format?: LogFormat;
  /** Colours in the pretty format; default: whether stderr is a TTY. */
  readonly colorize?: boolean;
};

export class Logger {
  private keys: Record<string, unknown> = {};
  private readonly threshold: number;
  private render: ((line: string) => string) | undefined;

  constructor(
    readonly service: string,
    level: string = process.env.LOG_LEVEL ?? 'info',
    private readonly sink: LogSink = STDERR,
    options: LoggerOptions = {},
  ) {
    this.threshold = LogLevel[level.toLowerCase() as LogLevelName] ?? LogLevel.info;
    const tty = process.stderr.isTTY === true;
    const format = options.format ?? (sink === STDERR ? logFormat(process.env, tty) : LogFormat.json);
    this.render = format === LogFormat.pretty ? prettyLine(options.colorize ?? tty) : undefined;
  }

  appendKeys(keys: Record<string, unknown>): void {
    this.keys = { ...this.keys, ...keys };
  }

  resetKeys(): void {
    this.keys = {};
  }

  /** A logger that shares this one's output and adds fixed keys (e.g. one per cluster). */
  child(keys: Record<string, unknown>): Logger {
    // The renderer is shared, not built again per child (one child per reconcile).
    const c = new Logger(this.service, levelName(this.threshold), this.sink, { format: LogFormat.json });
    c.render = this.render;
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
    const line = JSON.stringify(entry);
    this.sink(this.render ? this.render(line) : line);
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
