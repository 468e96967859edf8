// The sandbox stays up between test runs (fast reruns); test/run-all.sh and `npm run sandbox:down` stop it.
export default async function globalTeardown(): Promise<void> {}
