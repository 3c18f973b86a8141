import type { Standalone } from './standalone';

/** What the user sees once everything answers: where things are and what to try first. */
export function firstScreen(standalone: Standalone, dataDir: string): string {
  const { url, modes, sandbox, adminToken } = standalone;
  const demo = sandbox?.demo;
  const lines = [
    '',
    'guildkeeper is running (standalone mode)',
    '',
    `  Dashboard        ${url}/   (open it in a browser: one click logs in)`,
    `  API              ${url}/api/v1   (log in first: ${url}/auth/login)`,
    `  OpenAPI docs     ${url}/docs`,
    `  Health           ${url}/health/ready`,
    `  Provider webhook ${url}/webhooks/provider`,
    adminToken
      ? `  Operator token   ${adminToken}   (Authorization: Bearer, for ${url}/admin/v1/webhook-events)`
      : '',
    `  Data             ${dataDir}`,
    '',
    `  database ${modes.database} · events ${modes.events} · workflows ${modes.workflows} · key-value ${modes.keyValue}`,
    `  chat platform ${modes.chatPlatform} · payment provider ${modes.paymentProvider}`,
  ];
  if (sandbox) {
    lines.push('', `Sandbox (${url}/sandbox describes it):`);
    if (sandbox.platform && demo) {
      lines.push(
        `  chat platform    ${sandbox.platform.url}   signed in as the demo guild's owner (${demo.ownerId})`,
        `  demo guild       "${demo.name}", platform id ${demo.guildId}`,
        `  a raider         alice's token ${demo.raiderToken}   (or POST ${url}/sandbox/raid)`,
      );
    }
    if (sandbox.provider) {
      lines.push(`  payment provider ${sandbox.provider.url}   cards: POST ${url}/sandbox/cards`);
    }
  }
  lines.push(
    '',
    `Open ${url}/ to use the dashboard; the API walkthrough is docs/walkthrough.md.`,
    'Ctrl-C stops; the data stays for the next start.',
    '',
  );
  return lines.filter((line, index, all) => line !== '' || all[index - 1] !== '').join('\n') + '\n';
}
