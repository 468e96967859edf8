// The logger's two outputs: JSON lines (not a terminal, LOG_FORMAT=json, always in Lambda) and pino-pretty's
// rendering of the same line for people (a terminal, LOG_FORMAT=pretty); secrets are hidden in both.
import { describe, expect, it } from '@jest/globals';
import { Logger, LogFormat, logFormat } from '../../../shared/runtime/logger.js';

const SECRET = 'hunter2-never-shown';

function capture(format?: LogFormat): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = new Logger('fleetq-test', 'debug', (l) => lines.push(l), {
    ...(format !== undefined && { format }),
    colorize: false,
  });
  return { logger, lines };
}

describe('logFormat', () => {
  it.each([
    { name: 'a terminal: pretty', env: {}, tty: true, want: 'pretty' },
    { name: 'a pipe or file: JSON', env: {}, tty: false, want: 'json' },
    { name: 'LOG_FORMAT=json on a terminal', env: { LOG_FORMAT: 'json' }, tty: true, want: 'json' },
    { name: 'LOG_FORMAT=pretty into a pipe', env: { LOG_FORMAT: 'pretty' }, tty: false, want: 'pretty' },
    { name: 'LOG_FORMAT is case-insensitive', env: { LOG_FORMAT: 'JSON' }, tty: true, want: 'json' },
    { name: 'an unknown LOG_FORMAT: as unset', env: { LOG_FORMAT: 'xml' }, tty: false, want: 'json' },
    { name: 'Lambda: JSON on a terminal', env: { AWS_LAMBDA_FUNCTION_NAME: 'f' }, tty: true, want: 'json' },
    {
      name: 'Lambda: JSON whatever LOG_FORMAT says',
      env: { AWS_LAMBDA_FUNCTION_NAME: 'f', LOG_FORMAT: 'pretty' },
      tty: true,
      want: 'json',
    },
  ])('$name', ({ env, tty, want }) => expect(logFormat(env, tty)).toBe(want));
});

describe('Logger output', () => {
  it('writes one JSON object per line by default with a sink of its own, secrets hidden', () => {
    const { logger, lines } = capture();
    logger.child({ cluster: 'eu-1' }).info('Worker started', { driver: 'redis', password: SECRET });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 'info', service: 'fleetq-test', message: 'Worker started', cluster: 'eu-1' });
    expect(entry.driver).toBe('redis');
    expect(lines[0]).not.toContain(SECRET);
  });

  it('renders the same line with pino-pretty when pretty: time, level, message, then the fields', () => {
    const { logger, lines } = capture(LogFormat.pretty);
    logger.appendKeys({ key: 'eu-1/ReplicaSet/ns/web' });
    logger.child({ cluster: 'eu-1' }).warn('Reconcile failed', {
      error: { message: `connect to redis://:${SECRET}@10.0.0.1:6379 failed` },
    });
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? '';
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: Reconcile failed /);
    expect(line).toContain('"cluster":"eu-1"');
    expect(line).toContain('"key":"eu-1/ReplicaSet/ns/web"');
    expect(line).not.toContain('fleetq-test'); // the service is the process's: not repeated on every line
    expect(line).not.toContain(SECRET);
    expect(line).toContain('connect to redis://:***@10.0.0.1:6379 failed'); // an error gets lines of its own
    expect(() => JSON.parse(line)).toThrow();
  });

  it('keeps the level threshold in both formats', () => {
    for (const format of [LogFormat.json, LogFormat.pretty]) {
      const lines: string[] = [];
      const logger = new Logger('fleetq-test', 'warn', (l) => lines.push(l), { format, colorize: false });
      logger.info('not shown');
      logger.child({ a: 1 }).error('shown');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('shown');
    }
  });
});
