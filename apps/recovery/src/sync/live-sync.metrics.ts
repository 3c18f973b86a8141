import { Counter, Gauge } from 'prom-client';

/** Live sync's figures on `/metrics`. */
export const liveSyncMetrics = {
  guilds: new Gauge({
    name: 'live_sync_guilds',
    help: 'Guilds whose state live sync mirrors in this process',
  }),
  followedGuilds: new Gauge({
    name: 'live_sync_followed_guilds',
    help: "Guilds on this process's shards that the gateway announced, mirrored or not",
  }),
  shardOwned: new Gauge({
    name: 'live_sync_shard_owned',
    help: 'Gateway shards this process follows (1 per shard held)',
    labelNames: ['shard'],
  }),
  shardStopped: new Gauge({
    name: 'live_sync_shard_stopped',
    help: 'Shards this process holds that the gateway closed for good (4004, 4010-4014), by close code: not retried',
    labelNames: ['shard', 'code'],
  }),
  identifyHeld: new Gauge({
    name: 'live_sync_identify_held',
    help: 'Shards not identifying because the session starts are down to GATEWAY_IDENTIFY_RESERVE',
    labelNames: ['shard'],
  }),
  sessionStartsRemaining: new Gauge({
    name: 'live_sync_session_starts_remaining',
    help: "The bot's session starts left, as GET /gateway/bot last said before an IDENTIFY",
  }),
  shardCount: new Gauge({
    name: 'live_sync_shard_count',
    help: 'The shard count live sync uses',
  }),
  pausedGuilds: new Gauge({
    name: 'live_sync_paused_guilds',
    help: 'Mirrored guilds whose live sync a running restore has paused',
  }),
  events: new Counter({
    name: 'live_sync_events_total',
    help: 'Gateway events received by live sync, by type',
    labelNames: ['type'],
  }),
  bufferedEvents: new Counter({
    name: 'live_sync_buffered_events_total',
    help: 'Events held, not applied, because a restore had paused their guild',
  }),
  resumes: new Counter({
    name: 'live_sync_resumes_total',
    help: 'Guilds re-read from the platform after a restore ended its pause',
  }),
  botRemovals: new Counter({
    name: 'live_sync_bot_removals_total',
    help: 'Removals of the bot from a registered guild recorded (the guild marked removed)',
  }),
  destructiveActions: new Counter({
    name: 'live_sync_destructive_actions_total',
    help: 'Destructive actions (by anyone but the bot) handed to AntiNuke, by kind',
    labelNames: ['kind'],
  }),
  ownActionsIgnored: new Counter({
    name: 'live_sync_own_actions_ignored_total',
    help: 'Destructive audit-log entries not reported because the bot itself did them (a restore, AntiNuke)',
  }),
  sinkFailures: new Counter({
    name: 'live_sync_destructive_action_failures_total',
    help: 'Destructive actions AntiNuke could not take in (logged, not retried)',
  }),
};
