import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ChatPlatformClient } from '@lib/chat-platform';
import { assertManageGuild } from '@lib/guild-access';
import { DomainError, ValidationError } from '@lib/problem-details';
import {
  type APIApplicationCommandInteractionDataOption,
  type APIInteractionResponse,
  ApplicationCommandOptionType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
} from 'discord-api-types/v10';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildRegistry } from '../guilds/guild-registry.service';
import { SnapshotService } from '../snapshots/snapshot.service';
import { UserDirectory } from '../users/user-directory.repository';
import { InteractionClaims } from './interaction-claims';
import { SNAPSHOT_COMMAND, SNAPSHOT_DESCRIPTION_MAX } from './snapshot-command';

/** The part of an interaction this service reads; the platform sends more. */
export interface IncomingInteraction {
  id?: string;
  application_id?: string;
  token?: string;
  type: InteractionType;
  guild_id?: string;
  member?: { user?: { id?: string } };
  data?: { name?: string; options?: APIApplicationCommandInteractionDataOption[] };
}

/** What the endpoint answers, and the work to run once that answer has gone out. */
export interface InteractionAnswer {
  response: APIInteractionResponse;
  afterResponse?: () => void;
}

/** The platform's first-response deadline is 3 s; an interaction's token then lives 15 minutes. */
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Interactions remembered for the duplicate check; far more than one process takes in 15 minutes. */
const CLAIM_CAPACITY = 100_000;

/**
 * Answers the platform's interactions. The platform invalidates an interaction whose first
 * response takes longer than 3 seconds, so `/snapshot create` is answered at once with a
 * deferred ephemeral response (the member sees "thinking..."), before any database or platform
 * call; the snapshot is taken once that answer has been sent, and its outcome, refusals included,
 * replaces the loading message through the interaction's token. Command outcomes are ephemeral
 * messages to the invoking member: the platform shows any non-200 as "interaction failed", which
 * tells the member nothing.
 */
@Injectable()
export class InteractionsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InteractionsService.name);
  private readonly claims = new InteractionClaims(TOKEN_LIFETIME_MS, CLAIM_CAPACITY);
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly guilds: GuildRegistry,
    private readonly access: GuildAccessService,
    private readonly snapshots: SnapshotService,
    private readonly users: UserDirectory,
    private readonly platform: ChatPlatformClient,
  ) {}

  /** Synchronous on purpose: the answer never waits for the database or the platform. */
  handle(interaction: IncomingInteraction): InteractionAnswer {
    if (interaction.type === InteractionType.Ping)
      return { response: { type: InteractionResponseType.Pong } };
    if (interaction.type !== InteractionType.ApplicationCommand) {
      throw new ValidationError(
        `interaction type ${String(interaction.type)} is not handled by this application`,
      );
    }
    const subcommand = interaction.data?.options?.[0];
    if (
      interaction.data?.name !== SNAPSHOT_COMMAND.name ||
      subcommand?.type !== ApplicationCommandOptionType.Subcommand ||
      subcommand.name !== 'create'
    ) {
      return { response: reply('This command is not known here. Try `/snapshot create`.') };
    }
    const description = subcommand.options?.find((option) => option.name === 'description');
    const text = description?.type === ApplicationCommandOptionType.String ? description.value : undefined;
    const platformGuildId = interaction.guild_id;
    const platformUserId = interaction.member?.user?.id;
    if (!platformGuildId || !platformUserId) {
      return { response: reply('Use `/snapshot create` inside a server.') };
    }
    if (text !== undefined && text.length > SNAPSHOT_DESCRIPTION_MAX) {
      return { response: reply(`The description can be at most ${SNAPSHOT_DESCRIPTION_MAX} characters.`) };
    }
    const { id, application_id: applicationId, token } = interaction;
    if (!id || !applicationId || !token) {
      throw new ValidationError(
        'an application command interaction carries an id, an application_id and a token',
      );
    }
    // A second delivery of an interaction already taken up gets the same answer and no second snapshot.
    if (!this.claims.claim(id, Date.now())) return { response: deferred() };
    return {
      response: deferred(),
      afterResponse: () =>
        this.run(async () => {
          const outcome = await this.createSnapshot(platformGuildId, platformUserId, text);
          await this.report(applicationId, token, outcome, platformGuildId);
        }),
    };
  }

  /** Lets the commands under way finish and report before the process stops. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private run(work: () => Promise<void>): void {
    const running = work().catch((error: unknown) => {
      this.logger.error({ err: error }, 'slash command failed after its deferred answer');
    });
    this.running.add(running);
    void running.finally(() => this.running.delete(running));
  }

  /** Replaces the loading message with the outcome; a failure is logged, the snapshot stays. */
  private async report(
    applicationId: string,
    token: string,
    content: string,
    platformGuildId: string,
  ): Promise<void> {
    try {
      await this.platform.editInteractionReply(applicationId, token, content);
    } catch (error) {
      this.logger.warn(
        { err: error, platform_guild_id: platformGuildId },
        'could not edit the slash command’s reply with its outcome',
      );
    }
  }

  /** The command's outcome in plain words, for the member. */
  private async createSnapshot(
    platformGuildId: string,
    platformUserId: string,
    description: string | undefined,
  ): Promise<string> {
    try {
      const guild = await this.guilds.findByPlatformId(platformGuildId);
      if (!guild) {
        return 'This server is not registered yet. Register it on the dashboard, then try again.';
      }
      assertManageGuild(await this.access.access(guild.id, platformUserId));
      const created = await this.snapshots.create({
        guild,
        trigger: 'manual',
        // The member's service user, as a dashboard snapshot records it, once they have used the dashboard.
        createdByUser: await this.users.userIdOf(platformUserId),
        createdByPlatformUserId: platformUserId,
        description: description ?? null,
      });
      return (
        `Snapshot saved: \`${created.id}\` (${formatSize(created.size)}, ${created.created_at}). ` +
        'Preview a restore from it on the dashboard.'
      );
    } catch (error) {
      if (error instanceof DomainError) return `No snapshot taken. ${error.title}: ${error.message}`;
      this.logger.error({ err: error, platform_guild_id: platformGuildId }, 'slash command snapshot failed');
      return 'No snapshot taken: something went wrong on our side. Please try again in a minute.';
    }
  }
}

function reply(content: string): APIInteractionResponse {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: { content, flags: MessageFlags.Ephemeral },
  };
}

/** "Thinking...", seen by the member alone; the outcome replaces it. */
function deferred(): APIInteractionResponse {
  return {
    type: InteractionResponseType.DeferredChannelMessageWithSource,
    data: { flags: MessageFlags.Ephemeral },
  };
}

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}
