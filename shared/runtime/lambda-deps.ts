// What a Lambda handler builds once per container and reuses while warm, from process.env with the function's
// secret laid over it (lambda-secrets.ts). A build that failed is not kept: the next invocation builds again (a
// cached rejection would fail every invocation of a warm container). When the secret's value changed since the
// build (rotation), the old dependencies are closed and new ones built.
import { Logger } from './logger.js';
import { secretEnvLoader, type SecretEnvLoader } from './lambda-secrets.js';

export type Built<T> = {
  readonly deps: T;
  /** True for the first invocation of this container (the one that built the dependencies). */
  readonly coldStart: boolean;
};

export class LambdaDeps<T> {
  private current: { promise: Promise<T>; version: string } | undefined;
  private invocations = 0;
  private readonly secrets: SecretEnvLoader | undefined;
  private readonly logger: Logger;

  constructor(
    service: string,
    private readonly build: (env: NodeJS.ProcessEnv) => Promise<T>,
    private readonly close: (deps: T) => Promise<void>,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.logger = new Logger(service, env.LOG_LEVEL);
    this.secrets = secretEnvLoader(env, {
      onStale: (err) => this.logger.warn('Secret not refreshed, the last value kept', { err }),
    });
  }

  async get(): Promise<Built<T>> {
    const coldStart = this.invocations++ === 0;
    const secret = this.secrets ? await this.secrets.get() : { env: {}, version: '' };
    if (this.current && this.current.version !== secret.version) {
      this.logger.info('Secret changed, rebuilding', { from: this.current.version, to: secret.version });
      const stale = this.current.promise;
      this.current = undefined;
      await stale.then((d) => this.close(d)).catch(() => undefined);
    }
    if (!this.current) {
      const promise = this.build({ ...this.env, ...secret.env });
      const entry = { promise, version: secret.version };
      this.current = entry;
      promise.catch(() => {
        if (this.current === entry) this.current = undefined;
      });
    }
    return { deps: await this.current.promise, coldStart };
  }

  /** Closes what was built (invoke local, tests); the next get() builds again. */
  async dispose(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (current) await current.promise.then((d) => this.close(d)).catch(() => undefined);
  }
}
