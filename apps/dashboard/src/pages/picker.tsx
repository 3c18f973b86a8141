import { Page, ProblemMessage, QueryStatus } from '../app/layout';
import { Link, navigate } from '../app/router';
import { pathTo } from '../app/routes';
import type { Schemas } from '../api/client';
import { useMyGuilds, useRegisterGuild } from '../api/queries';

const STATUS_TEXT: Record<Schemas['MyGuildView']['status'], string> = {
  registered: 'Protected',
  bot_present: 'Bot present, not registered',
  bot_missing: 'Bot missing',
};

/** The guilds the user can manage, each protected, ready to register, or waiting for the bot. */
export function GuildPickerPage() {
  const guilds = useMyGuilds();
  return (
    <Page title="Your guilds">
      <QueryStatus query={guilds} what="your guilds" />
      {guilds.data && guilds.data.guilds.length === 0 && (
        <p>You manage no guild on the platform: guildkeeper protects guilds where you have Manage Server.</p>
      )}
      {guilds.data && guilds.data.guilds.length > 0 && (
        <ul className="guild-list" aria-label="Guilds you can manage">
          {guilds.data.guilds.map((guild) => (
            <GuildCard key={guild.platform_guild_id} guild={guild} />
          ))}
        </ul>
      )}
    </Page>
  );
}

function GuildCard({ guild }: { guild: Schemas['MyGuildView'] }) {
  const register = useRegisterGuild();
  const headingId = `guild-${guild.platform_guild_id}`;
  return (
    <li className="card guild-card" aria-labelledby={headingId}>
      <div className="guild-card-head">
        <span className="guild-initial" aria-hidden="true">
          {guild.name.slice(0, 1).toUpperCase()}
        </span>
        <h2 id={headingId} className="guild-name">
          {guild.status === 'registered' && guild.guild_id ? (
            <Link href={pathTo('guild', { guildId: guild.guild_id })}>{guild.name}</Link>
          ) : (
            guild.name
          )}
        </h2>
        <span className={`badge badge-${guild.status}`}>{STATUS_TEXT[guild.status]}</span>
      </div>
      {guild.owner && <p className="muted small">You own this guild.</p>}
      {guild.status === 'bot_present' && (
        <>
          <p>The bot is in this guild. Register it to take snapshots and restore it.</p>
          <button
            type="button"
            className="button button-primary"
            disabled={register.isPending}
            onClick={() =>
              register.mutate(guild.platform_guild_id, {
                onSuccess: (registered) => navigate(pathTo('guild', { guildId: registered.id })),
              })
            }
          >
            {register.isPending ? 'Registering…' : `Register ${guild.name}`}
          </button>
          {register.isError && <ProblemMessage error={register.error} />}
        </>
      )}
      {guild.status === 'bot_missing' && guild.bot_authorize_url && (
        <>
          <p>
            Add the bot first. It asks only for what restores need: View Channels, Manage Channels, Manage
            Roles, Manage Server and View Audit Log. Then come back here to register the guild.
          </p>
          <a className="button" href={guild.bot_authorize_url} rel="noopener noreferrer" target="_blank">
            Add the bot to {guild.name}
            <span className="visually-hidden"> (opens the platform in a new tab)</span>
          </a>
        </>
      )}
    </li>
  );
}
