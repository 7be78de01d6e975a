// Run on a pseudo-terminal by secrets-cli.test.ts: asks for one secret twice through the CLI store
// (prompt-only) and says whether the answer matched, without ever printing it.
import { createCliSecretStore } from '../../../main/services/secrets/cli';

async function main(): Promise<void> {
  const { store, kind } = await createCliSecretStore({ env: { ...process.env, LBDESK_KEYRING: 'off' } });
  const first = await store.get('appliance/lb1/password');
  const second = await store.get('appliance/lb1/password');
  process.stdout.write(`kind=${kind} ${first === process.env.EXPECT && second === first ? 'MATCH' : `MISMATCH length=${first?.length}`}\n`);
}
main().catch((err: Error) => {
  process.stdout.write(`ERROR ${err.message}\n`);
  process.exitCode = 1;
});
