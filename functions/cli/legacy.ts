// The command line before functions/cli.ts moved to commander. Every command group is now defined in its own
// module (functions/cli/*.ts) and nothing is left to parse here; legacy-command.ts still names main(), and both
// files can go once no wrapper uses them.
export async function main(argv: string[]): Promise<void> {
  throw new Error(`${JSON.stringify(argv[0] ?? '')} is not a fleetq command (fleetq --help)`);
}
