import { ChatPlatformClient, type GuildState } from '@lib/chat-platform';
import type { RestoreScope } from '@lib/contracts';
import { demoGuildSpec, FakeChatPlatform, type GuildSpec, type SeededGuild } from '@lib/sandbox';
import { fakeForSuite } from './loopback-fake';
import { readGuildExpressions } from '../../apps/recovery/src/snapshots/images/guild-expressions.reader';
import type { StoredImage } from '../../apps/recovery/src/snapshots/images/image-store';
import { readWelcomeFlow } from '../../apps/recovery/src/snapshots/welcome-flow.reader';
import { encodeMemberRoles } from '../../apps/recovery/src/snapshots/member-roles-codec';
import type { SnapshotPayload } from '../../apps/recovery/src/snapshots/snapshot-payload';
import type { PlatformIdReplacementsRepository } from '../../apps/recovery/src/restore/platform-id-replacements.repository';
import { RestoreComparisons } from '../../apps/recovery/src/restore/restore-comparisons';
import type { IdReplacement, RestoreDiff } from '../../apps/recovery/src/restore/restore-diff';
import type { NewWebhookAddress } from '../../apps/recovery/src/restore/restore-jobs.repository';
import type { SnapshotsRepository } from '../../apps/recovery/src/snapshots/snapshots.repository';
import type { StepOutcome } from '../../apps/recovery/src/restore/workflows/restore-contract';
import type { StepContext, StepHandler } from '../../apps/recovery/src/restore/steps/step-context';

/** What running a step to its end did: each call's outcome, in order. */
export interface StepRun {
  /** The diff the first comparison shows (what a preview would). */
  preview: RestoreDiff;
  calls: StepOutcome[];
  created: number;
  updated: number;
  deleted: number;
  /** The webhooks' new addresses the step kept on the job, by the snapshot's webhook id. */
  newWebhooks: Map<string, NewWebhookAddress>;
}

/**
 * For a step family's spec: the sandbox chat platform on loopback (reset before each test), the
 * bot's client to it, a fresh demo guild, its snapshot, and a step run to its end as a restore
 * runs it (every call from a fresh comparison of the snapshot with the guild).
 */
export function stepSandbox() {
  const fake = fakeForSuite(new FakeChatPlatform());
  let client!: ChatPlatformClient;
  /** The images snapshots took, as the image store would keep them. */
  const images = new Map<string, StoredImage>();
  /** The ids restores recreated things under, kept from one run to the next as the database keeps them. */
  const recorded: IdReplacement[] = [];
  beforeAll(() => {
    client = new ChatPlatformClient({
      apiBaseUrl: `${fake.url}/api`,
      cdnBaseUrl: fake.cdnUrl,
      botToken: fake.botToken,
    });
  });

  return {
    get client(): ChatPlatformClient {
      return client;
    },

    get platform(): FakeChatPlatform {
      return fake;
    },

    /** The replacements restores recorded so far (the id map), oldest first. */
    get recorded(): readonly IdReplacement[] {
      return recorded;
    },

    /** The demo guild, with `adjust`'s changes to its spec. */
    seed(adjust: (spec: GuildSpec) => void = () => {}): SeededGuild {
      const spec = demoGuildSpec();
      adjust(spec);
      return fake.seedGuild(spec);
    },

    /**
     * The guild as a snapshot keeps it, members' roles, bans, emojis, stickers, images, AutoMod
     * rules, welcome screen, onboarding and webhooks included.
     */
    async snapshot(guildId: string): Promise<SnapshotPayload> {
      const [state, members, bans] = await Promise.all([
        client.getGuildState(guildId),
        client.listMembers(guildId),
        client.listBans(guildId),
      ]);
      const expressions = await readGuildExpressions(client, state.guild, null, state.roles);
      if (!('parts' in expressions)) throw new Error(expressions.unreadable);
      expressions.parts.automod_rules = await client.listAutoModRules(guildId);
      const welcome = await readWelcomeFlow(client, state.guild);
      if ('unreadable' in welcome) throw new Error(welcome.unreadable);
      Object.assign(expressions.parts, welcome);
      for (const image of expressions.fetched) images.set(image.digest, image);
      return {
        ...state,
        version: 3,
        snapshot_at: new Date().toISOString(),
        member_roles: encodeMemberRoles(members.map((m) => ({ id: m.user.id, roles: m.roles }))),
        bans: bans.map((ban) => ({ user_id: ban.user.id, reason: ban.reason })),
        ...expressions.parts,
      };
    },

    /** Calls `handler` until it has nothing left (at most `maxCalls`), as the restore procedure does. */
    async runToEnd(
      handler: StepHandler,
      guildId: string,
      target: SnapshotPayload,
      scope: RestoreScope[],
      maxCalls = 10,
    ): Promise<StepRun> {
      const replacements = {
        record: (_guild: string, _job: string, replacement: IdReplacement) => {
          recorded.push(replacement);
          return Promise.resolve();
        },
        ofGuild: () => Promise.resolve([...recorded]),
      } as unknown as PlatformIdReplacementsRepository;
      const comparisons = new RestoreComparisons({} as SnapshotsRepository, replacements, client);
      const preview = (await comparisons.compare('guild', guildId, target, scope)).diff;
      const run: StepRun = { preview, calls: [], created: 0, updated: 0, deleted: 0, newWebhooks: new Map() };
      do {
        const comparison = await comparisons.compare('guild', guildId, target, scope);
        const context: StepContext = {
          jobId: 'job-1',
          guildId: 'guild',
          platformGuildId: guildId,
          comparison,
          preview,
          awaiting: [],
          recordReplacement: (kind, original, replacement) =>
            comparisons.recordReplacement('guild', 'job-1', {
              kind,
              original_id: original,
              replacement_id: replacement,
            }),
          recordNewWebhook: (webhook) => {
            run.newWebhooks.set(webhook.original_id, webhook);
            return Promise.resolve();
          },
          learnRecordedIds: () => Promise.resolve(comparison.ids.learnRecorded(recorded)),
          readImages: (digests) =>
            Promise.resolve(new Map(digests.map((digest) => [digest, images.get(digest)!]))),
        };
        const outcome = await handler(client, context);
        run.calls.push(outcome);
        run.created += outcome.created;
        run.updated += outcome.updated;
        run.deleted += outcome.deleted;
      } while (run.calls.at(-1)!.remaining > 0 && run.calls.length < maxCalls);
      return run;
    },

    /** The guild now, as the platform answers it. */
    state(guildId: string): Promise<GuildState> {
      return client.getGuildState(guildId);
    },
  };
}
