import {
  ApplicationCommandOptionType,
  type RESTPutAPIApplicationCommandsJSONBody,
} from 'discord-api-types/v10';

/** The description's limit, the same as the dashboard route's (`snapshots.description`). */
export const SNAPSHOT_DESCRIPTION_MAX = 500;

/**
 * `/snapshot create [description]`, as registered with the platform
 * (`PUT /applications/{application_id}/commands`). Only members who can manage the server see it;
 * the handler checks MANAGE_GUILD again, since server admins can change command permissions.
 */
export const SNAPSHOT_COMMAND: RESTPutAPIApplicationCommandsJSONBody[number] = {
  name: 'snapshot',
  description: 'Frozen copies of this server’s roles, channels and permissions',
  default_member_permissions: String(1n << 5n), // MANAGE_GUILD
  contexts: [0], // guilds only
  options: [
    {
      type: ApplicationCommandOptionType.Subcommand,
      name: 'create',
      description: 'Take a snapshot now',
      options: [
        {
          type: ApplicationCommandOptionType.String,
          name: 'description',
          description: 'What this snapshot is for',
          required: false,
          max_length: SNAPSHOT_DESCRIPTION_MAX,
        },
      ],
    },
  ],
};
