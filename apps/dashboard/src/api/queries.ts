import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type Schemas, unwrap } from './client';
import type { paths } from './schema';

/** Query keys, one place: a mutation invalidates exactly what it changes. */
export const keys = {
  me: ['me'] as const,
  myGuilds: ['me', 'guilds'] as const,
  guild: (guildId: string) => ['guild', guildId] as const,
  license: (guildId: string) => ['guild', guildId, 'license'] as const,
  snapshots: (guildId: string) => ['guild', guildId, 'snapshots'] as const,
  deletedSnapshots: (guildId: string) => ['guild', guildId, 'snapshots', 'deleted'] as const,
  snapshot: (snapshotId: string, payload: boolean) => ['snapshot', snapshotId, payload] as const,
  antinuke: (guildId: string) => ['guild', guildId, 'antinuke'] as const,
  incidents: (guildId: string) => ['guild', guildId, 'incidents'] as const,
  lockdown: (guildId: string) => ['guild', guildId, 'lockdown'] as const,
  latestRestore: (guildId: string) => ['guild', guildId, 'latest-restore'] as const,
  restoreJob: (jobId: string) => ['restore', jobId] as const,
  auditLog: (guildId: string) => ['guild', guildId, 'audit-log'] as const,
  memberNames: (guildId: string, userIds: readonly string[], platformUserIds: readonly string[]) =>
    ['guild', guildId, 'member-names', userIds, platformUserIds] as const,
  notificationPreferences: ['me', 'notification-preferences'] as const,
};

export const useMe = () =>
  useQuery({ queryKey: keys.me, queryFn: () => unwrap(api.GET('/api/v1/me')), staleTime: 60_000 });

export const useMyGuilds = () =>
  useQuery({ queryKey: keys.myGuilds, queryFn: () => unwrap(api.GET('/api/v1/me/guilds')) });

export const useGuild = (guildId: string) =>
  useQuery({
    queryKey: keys.guild(guildId),
    queryFn: () => unwrap(api.GET('/api/v1/guilds/{guildId}', { params: { path: { guildId } } })),
  });

export const useLicense = (guildId: string) =>
  useQuery({
    queryKey: keys.license(guildId),
    queryFn: () => unwrap(api.GET('/api/v1/guilds/{guildId}/license', { params: { path: { guildId } } })),
  });

export const useAntiNuke = (guildId: string) =>
  useQuery({
    queryKey: keys.antinuke(guildId),
    queryFn: () => unwrap(api.GET('/api/v1/guilds/{guildId}/antinuke', { params: { path: { guildId } } })),
  });

/**
 * Saves the setting: the answer is the setting in force (applied), or the pending change when it
 * loosens AntiNuke and waits for the owner; the setting is read again either way.
 */
export function useUpdateAntiNuke(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['UpdateAntiNukeSettingsDto']) =>
      unwrap(api.PUT('/api/v1/guilds/{guildId}/antinuke', { params: { path: { guildId } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.antinuke(guildId) }),
  });
}

/** The owner refuses, or applies now, the guild's pending AntiNuke change. */
export function usePendingAntiNukeChange(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ changeId, action }: { changeId: string; action: 'refuse' | 'approve' }) =>
      unwrap(
        action === 'refuse'
          ? api.POST('/api/v1/guilds/{guildId}/antinuke/pending/{changeId}/refuse', {
              params: { path: { guildId, changeId } },
            })
          : api.POST('/api/v1/guilds/{guildId}/antinuke/pending/{changeId}/approve', {
              params: { path: { guildId, changeId } },
            }),
      ),
    onSuccess: (view) => client.setQueryData(keys.antinuke(guildId), view),
  });
}

/** The lockdown in force; read again every 15 s, so one that lifted itself shows as lifted. */
export const useLockdown = (guildId: string) =>
  useQuery({
    queryKey: keys.lockdown(guildId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/guilds/{guildId}/antinuke/lockdown', { params: { path: { guildId } } })),
    refetchInterval: 15_000,
  });

export function useStartLockdown(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (minutes: number) =>
      unwrap(
        api.POST('/api/v1/guilds/{guildId}/antinuke/lockdown', {
          params: { path: { guildId } },
          body: { minutes },
        }),
      ),
    onSuccess: (lockdown) => client.setQueryData(keys.lockdown(guildId), { lockdown }),
  });
}

export function useLiftLockdown(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/api/v1/guilds/{guildId}/antinuke/lockdown', { params: { path: { guildId } } })),
    onSuccess: () => client.setQueryData(keys.lockdown(guildId), { lockdown: null }),
  });
}

/** "Give back" what an incident's quarantine took; the incidents are read again to show it. */
export function useReleaseQuarantine(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (incidentId: string) =>
      unwrap(
        api.POST('/api/v1/guilds/{guildId}/antinuke/incidents/{incidentId}/release', {
          params: { path: { guildId, incidentId } },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.incidents(guildId) }),
  });
}

/** Whether the logged-in user owns the guild, as recovery's AntiNuke view says (read on every plan). */
export function useOwnsGuild(guildId: string): boolean {
  return useAntiNuke(guildId).data?.viewer_is_owner ?? false;
}

export const useIncidents = (guildId: string) =>
  useQuery({
    queryKey: keys.incidents(guildId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/guilds/{guildId}/incidents', {
          params: { path: { guildId }, query: { limit: 50 } },
        }),
      ),
  });

/** "Undo this raid": the snapshot of the guild before the incident's raid, composed now. */
export function useUndoIncident(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (incidentId: string) =>
      unwrap(
        api.POST('/api/v1/guilds/{guildId}/antinuke/incidents/{incidentId}/undo', {
          params: { path: { guildId, incidentId } },
        }),
      ),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: keys.incidents(guildId) }),
        client.invalidateQueries({ queryKey: keys.snapshots(guildId) }),
      ]),
  });
}

export const useSnapshots = (guildId: string, limit = 50) =>
  useQuery({
    queryKey: [...keys.snapshots(guildId), limit],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/guilds/{guildId}/snapshots', { params: { path: { guildId }, query: { limit } } }),
      ),
    placeholderData: keepPreviousData,
  });

export const useSnapshot = (snapshotId: string | null, includePayload: boolean) =>
  useQuery({
    queryKey: keys.snapshot(snapshotId ?? '', includePayload),
    enabled: snapshotId !== null,
    staleTime: Infinity, // a snapshot never changes
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/snapshots/{snapshotId}', {
          params: { path: { snapshotId: snapshotId! }, query: { include_payload: includePayload } },
        }),
      ),
  });

export function useCreateSnapshot(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (description: string) =>
      unwrap(
        api.POST('/api/v1/guilds/{guildId}/snapshots', {
          params: { path: { guildId } },
          body: description ? { description } : {},
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.snapshots(guildId) }),
  });
}

/** A soft delete: hidden at once, and the owner can undo it for a grace period. */
export function useDeleteSnapshot(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (snapshotId: string) =>
      unwrap(api.DELETE('/api/v1/snapshots/{snapshotId}', { params: { path: { snapshotId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.snapshots(guildId) }),
  });
}

/** The deleted snapshots the owner can still bring back; only asked for when the reader owns the guild. */
export const useDeletedSnapshots = (guildId: string, owner: boolean) =>
  useQuery({
    queryKey: keys.deletedSnapshots(guildId),
    enabled: owner,
    queryFn: () =>
      unwrap(api.GET('/api/v1/guilds/{guildId}/deleted-snapshots', { params: { path: { guildId } } })),
  });

export function useUndeleteSnapshot(guildId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (snapshotId: string) =>
      unwrap(api.POST('/api/v1/snapshots/{snapshotId}/undelete', { params: { path: { snapshotId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.snapshots(guildId) }),
  });
}

export function useRegisterGuild() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (platformGuildId: string) =>
      unwrap(api.POST('/api/v1/guilds', { body: { platform_guild_id: platformGuildId } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.myGuilds }),
  });
}

/** The guild's newest restore, found through the audit log (the API lists no restore jobs). */
export const useLatestRestore = (guildId: string) =>
  useQuery({
    queryKey: keys.latestRestore(guildId),
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/api/v1/guilds/{guildId}/audit-log', {
          params: { path: { guildId }, query: { limit: 1, event_type: 'RestoreStarted' } },
        }),
      );
      const jobId = page.items[0]?.payload.restore_job_id;
      if (typeof jobId !== 'string') return null;
      return unwrap(api.GET('/api/v1/restore/{jobId}', { params: { path: { jobId } } }));
    },
    refetchInterval: (query) => (isRunning(query.state.data?.status) ? 2_000 : false),
  });

export const isRunning = (status: Schemas['RestoreJobStatus'] | undefined) =>
  status === 'pending' || status === 'running';

/** The job, read again every second while it runs (spec: progress without reloading). */
export const useRestoreJob = (jobId: string) =>
  useQuery({
    queryKey: keys.restoreJob(jobId),
    queryFn: () => unwrap(api.GET('/api/v1/restore/{jobId}', { params: { path: { jobId } } })),
    refetchInterval: (query) => (isRunning(query.state.data?.status) ? 1_000 : false),
    refetchIntervalInBackground: true,
  });

export type RestoreScope = Schemas['PreviewRestoreDto']['scope'][number];

export const previewRestore = (snapshotId: string, scope: RestoreScope[]) =>
  unwrap(api.POST('/api/v1/restore/preview', { body: { snapshot_id: snapshotId, scope } }));

export const startRestore = (body: Schemas['StartRestoreDto']) =>
  unwrap(api.POST('/api/v1/restore/start', { body }));

export function useCancelRestore(jobId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/restore/{jobId}/cancel', { params: { path: { jobId } } })),
    onSuccess: (job) => client.setQueryData(keys.restoreJob(jobId), job),
  });
}

/** The audit log's query: page size, cursor, kind, dates. */
export type AuditLogFilter = NonNullable<
  paths['/api/v1/guilds/{guildId}/audit-log']['get']['parameters']['query']
>;

/** One page of the guild's audit log, newest first; `cursor` is the previous page's `next_cursor`. */
export const useAuditLog = (guildId: string, query: AuditLogFilter) =>
  useQuery({
    queryKey: [...keys.auditLog(guildId), query],
    queryFn: () =>
      unwrap(api.GET('/api/v1/guilds/{guildId}/audit-log', { params: { path: { guildId }, query } })),
    placeholderData: keepPreviousData,
  });

/** The API's limit of ids of each kind in one names request. */
const MAX_NAMED_USERS = 50;

/** Who a page mentions: our user ids and platform user ids. */
export interface NamedUsers {
  userIds: readonly string[];
  platformUserIds: readonly string[];
}

/** What a page knows of the names of the users it mentions; empty until (unless) they arrive. */
export interface KnownNames {
  /** Our user id -> name. */
  users: ReadonlyMap<string, string>;
  /** Platform user id -> name. */
  platformUsers: ReadonlyMap<string, string>;
}

/**
 * The names the guild knows the mentioned users by (`GET /api/v1/guilds/{id}/member-names`). The
 * page shows its own wording meanwhile, and keeps it when a name is unknown or the request fails:
 * names are a nicety, never a reason to hold a page back.
 */
export function useMemberNames(guildId: string, named: NamedUsers): KnownNames {
  const userIds = named.userIds.slice(0, MAX_NAMED_USERS);
  const platformUserIds = named.platformUserIds.slice(0, MAX_NAMED_USERS);
  const query = useQuery({
    queryKey: keys.memberNames(guildId, userIds, platformUserIds),
    enabled: userIds.length + platformUserIds.length > 0,
    staleTime: 5 * 60_000,
    retry: false,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/guilds/{guildId}/member-names', {
          params: {
            path: { guildId },
            query: { user_id: [...userIds], platform_user_id: [...platformUserIds] },
          },
        }),
      ),
  });
  return useMemo(() => {
    const users = new Map<string, string>();
    const platformUsers = new Map<string, string>();
    for (const item of query.data?.items ?? []) {
      if (item.name === null) continue;
      if (item.user_id !== null) users.set(item.user_id, item.name);
      platformUsers.set(item.platform_user_id, item.name);
    }
    return { users, platformUsers };
  }, [query.data]);
}

export const useNotificationPreferences = () =>
  useQuery({
    queryKey: keys.notificationPreferences,
    queryFn: () => unwrap(api.GET('/api/v1/me/notification-preferences')),
  });

export function useSaveNotificationPreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['PutNotificationPreferencesDto']) =>
      unwrap(api.PUT('/api/v1/me/notification-preferences', { body })),
    onSuccess: (saved) => client.setQueryData(keys.notificationPreferences, saved),
  });
}

export const useSendTestDm = () =>
  useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/me/notification-preferences/test-dm')),
  });

export async function logout(): Promise<void> {
  await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin' });
}
