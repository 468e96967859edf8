// One check of `fleetq doctor` (doctor.ts): what was checked, ok, warn or FAIL, what was found and what to do.

export const CheckStatus = { ok: 'ok', warn: 'warn', fail: 'FAIL' } as const;
export type CheckStatus = (typeof CheckStatus)[keyof typeof CheckStatus];

export type Check = {
  /** What was checked: `cluster fleetq-1: reachable`, `Redis`, `signing secret`. */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found. */
  readonly message: string;
  /** What to do about it (a warning or a failure). */
  readonly fix?: string;
  readonly cluster?: string;
  readonly kind?: string;
};
