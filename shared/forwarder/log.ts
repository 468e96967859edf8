// A minimal structured logger for the forwarder: one JSON line per entry on stderr, constant messages with the
// data in fields. Swap for the shared runtime logger when it exists; the interface is the subset we use.
export const LogLevel = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LogLevel;
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every entry. */
  child(fields: LogFields): Logger;
}

export type JsonLoggerOptions = {
  readonly level?: LogLevel;
  /** Where lines go; default stderr. */
  readonly write?: (line: string) => void;
  readonly now?: () => Date;
};

export function jsonLogger(options: JsonLoggerOptions = {}, base: LogFields = {}): Logger {
  const min = LogLevel[options.level ?? levelFromEnv(process.env.LOG_LEVEL)];
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const now = options.now ?? (() => new Date());
  const emit =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}): void => {
      if (LogLevel[level] < min) return;
      const entry: Record<string, unknown> = { time: now().toISOString(), level, msg, ...base };
      for (const [k, v] of Object.entries(fields)) entry[k] = v instanceof Error ? serializeError(v) : v;
      write(JSON.stringify(entry));
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => jsonLogger(options, { ...base, ...fields }),
  };
}

/** Drops everything (tests that do not look at logs). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

function levelFromEnv(value: string | undefined): LogLevel {
  const v = (value ?? '').toLowerCase();
  return v === 'debug' || v === 'info' || v === 'warn' || v === 'error' ? v : 'info';
}

export function serializeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: Record<string, unknown> = { name: err.name, message: err.message };
  const extra = err as Error & { code?: unknown; statusCode?: unknown };
  if (extra.code !== undefined) out.code = extra.code;
  if (extra.statusCode !== undefined) out.statusCode = extra.statusCode;
  if (err.cause !== undefined) out.cause = serializeError(err.cause);
  return out;
}
