/**
 * The gateway shard that carries a guild's events, as the platform defines it:
 * `(guild_id >> 22) % shard_count`. Live sync uses it to know which guilds a shard it lets go of
 * carried; the fake platform, to send each guild's events on its shard only.
 */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}
