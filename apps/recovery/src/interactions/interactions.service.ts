import { Injectable, Logger } from '@nestjs/common';
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
import { SNAPSHOT_COMMAND, SNAPSHOT_DESCRIPTION_MAX } from './snapshot-command';

/** The part of an interaction this service reads; the platform sends more. */
export interface IncomingInteraction {
  type: InteractionType;
  guild_id?: string;
  member?: { user?: { id?: string } };
  data?: { name?: string; options?: APIApplicationCommandInteractionDataOption[] };
}

/**
 * Answers the platform's interactions. Command outcomes, refusals included, are ephemeral
 * messages to the invoking member: the platform shows any non-200 as "interaction failed", which
 * tells the member nothing.
 */
@Injectable()
export class InteractionsService {
  private readonly logger = new Logger(InteractionsService.name);

  constructor(
    private readonly guilds: GuildRegistry,
    private readonly access: GuildAccessService,
    private readonly snapshots: SnapshotService,
    private readonly users: UserDirectory,
  ) {}

  async handle(interaction: IncomingInteraction): Promise<APIInteractionResponse> {
    if (interaction.type === InteractionType.Ping) return { type: InteractionResponseType.Pong };
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
      return reply('This command is not known here. Try `/snapshot create`.');
    }
    const description = subcommand.options?.find((option) => option.name === 'description');
    const text = description?.type === ApplicationCommandOptionType.String ? description.value : undefined;
    return this.createSnapshot(interaction.guild_id, interaction.member?.user?.id, text);
  }

  private async createSnapshot(
    platformGuildId: string | undefined,
    platformUserId: string | undefined,
    description: string | undefined,
  ): Promise<APIInteractionResponse> {
    if (!platformGuildId || !platformUserId) return reply('Use `/snapshot create` inside a server.');
    if (description !== undefined && description.length > SNAPSHOT_DESCRIPTION_MAX) {
      return reply(`The description can be at most ${SNAPSHOT_DESCRIPTION_MAX} characters.`);
    }
    try {
      const guild = await this.guilds.findByPlatformId(platformGuildId);
      if (!guild) {
        return reply('This server is not registered yet. Register it on the dashboard, then try again.');
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
      return reply(
        `Snapshot saved: \`${created.id}\` (${formatSize(created.size)}, ${created.created_at}). ` +
          'Preview a restore from it on the dashboard.',
      );
    } catch (error) {
      if (error instanceof DomainError) return reply(`No snapshot taken. ${error.title}: ${error.message}`);
      this.logger.error({ err: error, platform_guild_id: platformGuildId }, 'slash command snapshot failed');
      return reply('No snapshot taken: something went wrong on our side. Please try again in a minute.');
    }
  }
}

function reply(content: string): APIInteractionResponse {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: { content, flags: MessageFlags.Ephemeral },
  };
}

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}
