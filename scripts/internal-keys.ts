import { SERVICE_NAMES } from '@lib/contracts';
import { generateInternalKeys } from '@lib/identity';

/**
 * `npm run keys`: a fresh set of internal-token keys, one Ed25519 key pair per service, printed as
 * shell assignments. Each service gets its own `INTERNAL_SIGNING_KEY` (secret: give each only its
 * own) and every service the same `INTERNAL_PUBLIC_KEYS` (public). `--json` prints them as JSON.
 */
const keys = generateInternalKeys();
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
} else {
  const lines = [
    '# Every service, not secret:',
    `INTERNAL_PUBLIC_KEYS='${keys.publicKeys}'`,
    "# Each service's own INTERNAL_SIGNING_KEY, secret:",
    ...SERVICE_NAMES.map(
      (service) =>
        `${service.toUpperCase().replace(/-/g, '_')}_INTERNAL_SIGNING_KEY='${keys.signingKeys[service]}'`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
