import type { FakeChatPlatform, SlashCommand } from '@lib/sandbox';
import { createPrivateKey, sign } from 'node:crypto';

/**
 * A test-only application key pair: the apps under test get the public half as
 * DISCORD_PUBLIC_KEY (test-env.ts), and tests sign interactions with the private half as the
 * platform would.
 */
const TEST_APPLICATION_KEY = createPrivateKey({
  format: 'jwk',
  key: {
    kty: 'OKP',
    crv: 'Ed25519',
    d: 'Upf8CmQ8xysqAkgSuW3OptDyBJa4WHQhdyWto9Hmy94',
    x: 'mTAEPfPJOtSFo81eLnYnlSazrls3-O1HYqquoElFMtI',
  },
});
export const TEST_APPLICATION_PUBLIC_KEY = '9930043df3c93ad485a3cd5e2e76279526b3ae5b37f8ed4762aaaea0494532d2';

/** Posts an interaction to `baseUrl/interactions`, signed like the platform signs it (or as told). */
export async function postInteraction(
  baseUrl: string,
  interaction: unknown,
  options: { signature?: string; timestamp?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const raw = JSON.stringify(interaction);
  const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
  const signature =
    options.signature ?? sign(null, Buffer.from(timestamp + raw), TEST_APPLICATION_KEY).toString('hex');
  const response = await fetch(`${baseUrl}/interactions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-signature-ed25519': signature,
      'x-signature-timestamp': timestamp,
    },
    body: raw,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** `/snapshot create [description]` as the platform delivers it from a guild member. */
export function snapshotCommand(platformGuildId: string, platformUserId: string, description?: string) {
  return {
    type: 2,
    id: '1300000000000000001',
    application_id: '1300000000000000000',
    token: 'interaction-token',
    version: 1,
    guild_id: platformGuildId,
    channel_id: '1300000000000000002',
    member: { user: { id: platformUserId, username: 'someone' }, permissions: '0', roles: [] },
    data: {
      id: '1300000000000000003',
      name: 'snapshot',
      type: 1,
      options: [
        {
          type: 1,
          name: 'create',
          options: description === undefined ? [] : [{ type: 3, name: 'description', value: description }],
        },
      ],
    },
  };
}

/**
 * Saves the app's `/interactions` route as the fake platform application's Interactions Endpoint
 * URL, signed with the test application's key; the platform checks the endpoint as it saves it.
 */
export function connectInteractions(platform: FakeChatPlatform, appBaseUrl: string): Promise<void> {
  return platform.setInteractionsEndpoint({
    url: `${appBaseUrl}/interactions`,
    signingKey: TEST_APPLICATION_KEY,
  });
}

/** `/snapshot create [description]` as a member invokes it, for `FakeChatPlatform.sendCommand`. */
export function snapshotCreate(
  platformGuildId: string,
  platformUserId: string,
  description?: string,
): SlashCommand {
  return {
    guildId: platformGuildId,
    userId: platformUserId,
    name: 'snapshot',
    options: [
      {
        type: 1,
        name: 'create',
        options: description === undefined ? [] : [{ type: 3, name: 'description', value: description }],
      },
    ],
  };
}
