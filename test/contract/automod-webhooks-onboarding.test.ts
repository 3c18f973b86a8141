import { FakeChatPlatform, type GuildSpec, type SeededGuild } from '@lib/sandbox';
import { REST } from '@discordjs/rest';
import { AuditLogEvent, PermissionFlagsBits as P, Routes } from 'discord-api-types/v10';
import {
  contractFor,
  ERROR_RESPONSE,
  GUILD_SETUP_CONTRACTS,
  ROUTE_CONTRACTS,
  type RouteContract,
} from './support/discord-schemas';
import { type Exchange, RecordingProxy } from './support/recording-proxy';
import { itChecksEveryRoute, succeeded } from './support/route-checks';
import { checkAgainst } from './support/schema-check';

const REASON = 'contract suite';

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const AVATAR = `data:image/png;base64,${PNG.toString('base64')}`;

/**
 * The routes this suite calls: the AutoMod, webhook, welcome screen and onboarding routes
 * ROUTE_CONTRACTS does not hold yet, and those it holds that they go with (creating a webhook, the
 * audit log), checked here again with avatars and the new entries.
 */
const CHECKED: RouteContract[] = [
  ...GUILD_SETUP_CONTRACTS,
  ...ROUTE_CONTRACTS.filter(
    (contract) =>
      contract.path === '/guilds/{guild_id}/audit-logs' ||
      contract.path.startsWith('/guilds/{guild_id}/auto-moderation/') ||
      contract.path === '/guilds/{guild_id}/welcome-screen' ||
      contract.path === '/guilds/{guild_id}/onboarding' ||
      (contract.path === '/channels/{channel_id}/webhooks' && contract.method === 'POST') ||
      contract.path === '/guilds/{guild_id}/webhooks' ||
      contract.path === '/webhooks/{webhook_id}',
  ),
];

const contractOf = (exchange: Exchange) => contractFor(exchange.method, exchange.path, CHECKED);

/** Seven channels @everyone may chat in, as enabling onboarding needs, and a voice channel. */
const CHANNELS = ['general', 'rules', 'alerts', 'intro', 'help', 'media', 'off-topic'];

const SPEC: GuildSpec = {
  name: 'Setup Guild',
  features: ['COMMUNITY'],
  roles: [{ name: 'Trusted' }, { name: 'Gamer' }],
  channels: [...CHANNELS.map((name) => ({ name })), { name: 'Lounge', type: 'voice' }],
  bot: {
    // What a bot restoring these parts holds, without ADMINISTRATOR.
    permissions:
      P.ViewChannel |
      P.SendMessages |
      P.ManageGuild |
      P.ManageRoles |
      P.ManageWebhooks |
      P.ModerateMembers |
      P.ViewAuditLog,
  },
};

describe('the fake platform’s AutoMod, webhook, welcome screen and onboarding routes against the published Discord schemas', () => {
  const platform = new FakeChatPlatform({ rateLimits: { perRoute: 'off', global: 'off' } });
  let proxy: RecordingProxy;
  let rest: REST;
  let seeded: SeededGuild;

  beforeAll(async () => {
    await platform.start();
    proxy = new RecordingProxy(platform.url);
    await proxy.start();
    rest = new REST({ api: `${proxy.url}/api`, retries: 0 }).setToken(platform.botToken);
    seeded = platform.seedGuild(SPEC);
    await exerciseEveryRoute();
  }, 60_000);

  afterAll(async () => {
    await proxy.stop();
    await platform.stop();
  });

  /** Every route, as a backup and a restore (and a raid) will use them, and the refusals they meet. */
  async function exerciseEveryRoute() {
    const { guildId, channels, roles } = seeded;
    const rules = Routes.guildAutoModerationRules(guildId);
    const keyword = (await rest.post(rules, {
      body: {
        name: 'No spam',
        event_type: 1,
        trigger_type: 1,
        trigger_metadata: { keyword_filter: ['spam*'], regex_patterns: ['(b|c)at'], allow_list: ['spammer'] },
        actions: [
          { type: 1, metadata: { custom_message: 'Not here.' } },
          { type: 2, metadata: { channel_id: channels.alerts } },
          { type: 3, metadata: { duration_seconds: 60 } },
        ],
        enabled: true,
        exempt_roles: [roles.Trusted],
        exempt_channels: [channels['off-topic']],
      },
      reason: REASON,
    })) as { id: string };
    await rest.post(rules, {
      body: {
        name: 'Presets',
        event_type: 1,
        trigger_type: 4,
        trigger_metadata: { presets: [1, 3] },
        actions: [{ type: 1 }],
      },
    });
    const spam = (await rest.post(rules, {
      body: { name: 'Spam', event_type: 1, trigger_type: 3, actions: [{ type: 1 }] },
    })) as { id: string };
    await rest.post(rules, {
      body: {
        name: 'Mentions',
        event_type: 1,
        trigger_type: 5,
        trigger_metadata: { mention_total_limit: 5, mention_raid_protection_enabled: true },
        actions: [{ type: 1 }, { type: 3, metadata: { duration_seconds: 600 } }],
      },
    });
    await rest.post(rules, {
      body: {
        name: 'Names',
        event_type: 2,
        trigger_type: 6,
        trigger_metadata: { keyword_filter: ['admin'] },
        actions: [{ type: 4 }, { type: 2, metadata: { channel_id: channels.alerts } }],
      },
    });
    await rest.get(rules);
    await rest.get(Routes.guildAutoModerationRule(guildId, keyword.id));
    await rest.patch(Routes.guildAutoModerationRule(guildId, keyword.id), {
      body: {
        name: 'No spam at all',
        trigger_metadata: { keyword_filter: ['spam*', 'scam'] },
        enabled: false,
      },
    });
    await rest.delete(Routes.guildAutoModerationRule(guildId, spam.id), { reason: REASON });

    const webhook = (await rest.post(Routes.channelWebhooks(channels.general), {
      body: { name: 'Announcer', avatar: AVATAR },
      reason: REASON,
    })) as { id: string };
    await rest.get(Routes.channelWebhooks(channels.general));
    await rest.get(Routes.guildWebhooks(guildId));
    await rest.get(Routes.webhook(webhook.id));
    await rest.patch(Routes.webhook(webhook.id), {
      body: { name: 'Herald', avatar: null, channel_id: channels.help },
    });

    await rest.patch(Routes.guildWelcomeScreen(guildId), {
      body: {
        enabled: true,
        description: 'Welcome!',
        welcome_channels: [
          { channel_id: channels.rules, description: 'Read the rules', emoji_name: '📜' },
          { channel_id: channels.general, description: 'Say hello', emoji_id: null, emoji_name: null },
        ],
      },
      reason: REASON,
    });
    await rest.get(Routes.guildWelcomeScreen(guildId));

    await rest.get(Routes.guildOnboarding(guildId));
    await rest.put(Routes.guildOnboarding(guildId), {
      body: {
        prompts: [
          {
            id: '1100000000000000001',
            title: 'What brings you here?',
            options: [
              { title: 'Games', description: 'We play', emoji_name: '🎮', role_ids: [roles.Gamer] },
              { id: '1100000000000000002', title: 'Help', channel_ids: [channels.help] },
            ],
            single_select: false,
            required: false,
            in_onboarding: true,
            type: 0,
          },
        ],
        default_channel_ids: CHANNELS.map((name) => channels[name]),
        enabled: true,
        mode: 0,
      },
      reason: REASON,
    });
    await rest.get(Routes.guildOnboarding(guildId));
    await rest.get(Routes.guildAuditLog(guildId));
    await rest.delete(Routes.webhook(webhook.id), { reason: REASON });

    // What the platform refuses: a second SPAM rule, changing a trigger type, an unknown rule, a
    // deleted webhook, onboarding below its requirements, a guild that is not a Community's screen.
    const other = platform.seedGuild({ name: 'Plain', bot: SPEC.bot });
    const attempts = [
      () =>
        rest.post(rules, { body: { name: 'Spam', event_type: 1, trigger_type: 3, actions: [{ type: 1 }] } }),
      () =>
        rest.post(rules, { body: { name: 'Spam', event_type: 1, trigger_type: 3, actions: [{ type: 1 }] } }),
      () => rest.patch(Routes.guildAutoModerationRule(guildId, keyword.id), { body: { trigger_type: 5 } }),
      () => rest.get(Routes.guildAutoModerationRule(guildId, spam.id)),
      () => rest.get(Routes.webhook(webhook.id)),
      () => rest.put(Routes.guildOnboarding(guildId), { body: { default_channel_ids: [channels.general] } }),
      () => rest.get(Routes.guildWelcomeScreen(other.guildId)),
    ];
    const outcomes: boolean[] = [];
    for (const attempt of attempts)
      outcomes.push(
        await attempt().then(
          () => true,
          () => false,
        ),
      );
    // The first SPAM rule is allowed again (the one there was is deleted); the second is one too many.
    expect(outcomes).toEqual([true, false, false, false, false, false, false]);
  }

  itChecksEveryRoute(CHECKED, () => proxy.exchanges);

  it('answers the creations 200, as the OpenAPI document declares', () => {
    const creations = proxy.exchanges.filter(
      (exchange) => exchange.method === 'POST' && succeeded(exchange) && contractOf(exchange),
    );
    expect(creations.map((exchange) => exchange.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
  });

  it('answers every refusal in the error format, with the JSON error codes Discord answers', () => {
    const refusals = proxy.exchanges.filter((exchange) => exchange.status >= 400);
    const mismatches = refusals.flatMap((exchange) => {
      const { loose, strict } = checkAgainst(ERROR_RESPONSE, exchange.responseBody);
      return [...new Set([...loose, ...strict])].map((line) => `${exchange.method} ${exchange.path} ${line}`);
    });
    expect(mismatches).toEqual([]);
    // Too many SPAM rules and a trigger type changed (Invalid Form Body), an unknown rule (404, no
    // code documented), Unknown Webhook, onboarding requirements, Unknown Guild Welcome Screen.
    expect(
      refusals.map((exchange) => [exchange.status, (exchange.responseBody as { code: number }).code]),
    ).toEqual([
      [400, 50035],
      [400, 50035],
      [404, 0],
      [404, 10015],
      [400, 350001],
      [404, 10069],
    ]);
  });

  it('writes the documented audit-log events for each change, with the reason given', () => {
    const documented: AuditLogEvent[] = [
      AuditLogEvent.AutoModerationRuleCreate,
      AuditLogEvent.AutoModerationRuleUpdate,
      AuditLogEvent.AutoModerationRuleDelete,
      AuditLogEvent.WebhookCreate,
      AuditLogEvent.WebhookUpdate,
      AuditLogEvent.WebhookDelete,
      AuditLogEvent.GuildUpdate,
      AuditLogEvent.OnboardingCreate,
      AuditLogEvent.OnboardingPromptCreate,
    ];
    const entries = platform
      .auditLog(seeded.guildId)
      .filter((entry) => documented.includes(entry.action_type));
    expect(entries.map((entry) => [entry.action_type, entry.reason])).toEqual([
      [140, REASON],
      [140, undefined],
      [140, undefined],
      [140, undefined],
      [140, undefined],
      [141, undefined],
      [142, REASON],
      [50, REASON],
      [51, undefined],
      [1, REASON],
      [166, REASON],
      [163, REASON],
      [52, REASON],
      [140, undefined],
    ]);
  });

  it('serves no avatar of a webhook once it is removed', async () => {
    const created = proxy.exchanges.find(
      (exchange) => exchange.method === 'POST' && exchange.path.endsWith('/webhooks'),
    )!.responseBody as { id: string; avatar: string };
    // Removed by the modify, and the webhook deleted since.
    const response = await fetch(`${platform.cdnUrl}/avatars/${created.id}/${created.avatar}.png`);
    expect(response.status).toBe(404);
  });
});
