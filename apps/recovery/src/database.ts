import { Guild } from './guilds/guild.entity';
import { Init1763800000000 } from './migrations/1763800000000-init';
import { GuildsSnapshotsRestoreJobs1763900000000 } from './migrations/1763900000000-guilds-snapshots-restore-jobs';
import { RestoreRuns1764000000000 } from './migrations/1764000000000-restore-runs';
import { RestoreJobRequester1764400000000 } from './migrations/1764400000000-restore-job-requester';
import { AntiNuke1764600000000 } from './migrations/1764600000000-antinuke';
import { UserDirectory1765400000000 } from './migrations/1765400000000-user-directory';
import { AntiNukeSwitchAndExempt1765500000000 } from './migrations/1765500000000-antinuke-switch-and-exempt';
import { UserDirectoryByUser1766000000000 } from './migrations/1766000000000-user-directory-by-user';
import { AntiNukeIncidentTargets1766200000000 } from './migrations/1766200000000-antinuke-incident-targets';
import { LiveSyncShards1766300000000 } from './migrations/1766300000000-live-sync-shards';
import { Snapshot } from './snapshots/snapshot.entity';
import { RetentionIndexes1766400000000 } from './migrations/1766400000000-retention-indexes';
import { RestoreJobLeftWaiting1766500000000 } from './migrations/1766500000000-restore-job-left-waiting';
import { AntiNukeContainment1766630000000 } from './migrations/1766630000000-antinuke-containment';
import { ChangeJournal1766600000000 } from './migrations/1766600000000-change-journal';
import { GuardTheGuard1766610000000 } from './migrations/1766610000000-guard-the-guard';
import { GuildAccessGeneration1766640000000 } from './migrations/1766640000000-guild-access-generation';
import { ManualSnapshotReservations1766640000001 } from './migrations/1766640000001-manual-snapshot-reservations';
import { AntiNukeIncidentActions1766620000000 } from './migrations/1766620000000-antinuke-incident-actions';
import { SnapshotImages1766700000000 } from './migrations/1766700000000-snapshot-images';
import { AutoModRuleIds1766700000001 } from './migrations/1766700000001-automod-rule-ids';
import { WebhookIdsAndAddresses1766700000002 } from './migrations/1766700000002-webhook-ids-and-addresses';
import { ForumTagIds1766700000003 } from './migrations/1766700000003-forum-tag-ids';

export const recoveryDatabase = {
  schema: 'recovery',
  entities: [Guild, Snapshot],
  migrations: [
    Init1763800000000,
    GuildsSnapshotsRestoreJobs1763900000000,
    RestoreRuns1764000000000,
    RestoreJobRequester1764400000000,
    AntiNuke1764600000000,
    UserDirectory1765400000000,
    AntiNukeSwitchAndExempt1765500000000,
    UserDirectoryByUser1766000000000,
    AntiNukeIncidentTargets1766200000000,
    LiveSyncShards1766300000000,
    RetentionIndexes1766400000000,
    RestoreJobLeftWaiting1766500000000,
    ChangeJournal1766600000000,
    GuardTheGuard1766610000000,
    AntiNukeIncidentActions1766620000000,
    AntiNukeContainment1766630000000,
    GuildAccessGeneration1766640000000,
    ManualSnapshotReservations1766640000001,
    SnapshotImages1766700000000,
    AutoModRuleIds1766700000001,
    WebhookIdsAndAddresses1766700000002,
    ForumTagIds1766700000003,
  ],
};
