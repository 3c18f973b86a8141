import type { GuildState } from '@lib/chat-platform';
import { DomainError } from '@lib/problem-details';

/** The payload version creation writes; reading checks it (docs/behaviour.md §9.2). */
export const SNAPSHOT_PAYLOAD_VERSION = 1;
export const SUPPORTED_SNAPSHOT_VERSIONS: readonly number[] = [1];

/** docs/behaviour.md §8: at most 5 MiB of serialised JSON. */
export const SNAPSHOT_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Version 1: the guild's state (settings, roles, channels and overrides; never message content),
 * stamped with its version and time.
 */
export interface SnapshotPayload extends GuildState {
  version: number;
  snapshot_at: string;
}

export class SnapshotTooLargeError extends DomainError {
  constructor(size: number) {
    super(
      'ErrSnapshotTooLarge',
      413,
      'Snapshot too large',
      `The guild's state is ${size} bytes, over the ${SNAPSHOT_MAX_BYTES} byte limit for a snapshot.`,
      { size, limit: SNAPSHOT_MAX_BYTES },
    );
  }
}

/**
 * Builds and serialises the payload, measuring what is stored. The adapter maps the platform's
 * answers onto exactly the fields of its types, so nothing the platform adds later slips in
 * unversioned.
 */
export function serialiseSnapshot(
  state: GuildState,
  at: Date,
): { payload: SnapshotPayload; json: string; size: number } {
  const payload: SnapshotPayload = {
    version: SNAPSHOT_PAYLOAD_VERSION,
    snapshot_at: at.toISOString(),
    guild: { ...state.guild },
    roles: state.roles.map((role) => ({ ...role })),
    channels: state.channels.map((channel) => ({ ...channel })),
    permission_overrides: state.permission_overrides.map((override) => ({ ...override })),
  };
  const json = JSON.stringify(payload);
  return { payload, json, size: Buffer.byteLength(json, 'utf8') };
}

/** docs/behaviour.md §9.2: a payload of a version this build cannot read is refused, for preview and restore. */
export class SnapshotUnsupportedError extends DomainError {
  constructor(version: unknown) {
    super(
      'ErrSnapshotUnsupported',
      422,
      'Snapshot unsupported',
      `This snapshot's payload version (${JSON.stringify(version ?? null)}) cannot be restored by this version of the service.`,
      { version: version ?? null, supported_versions: SUPPORTED_SNAPSHOT_VERSIONS },
    );
  }
}

/** Checks the version and the shape a restore relies on before anything reads the payload. */
export function readSnapshotPayload(raw: unknown): SnapshotPayload {
  const payload = raw as Partial<SnapshotPayload> | null;
  const version = payload?.version;
  if (typeof version !== 'number' || !SUPPORTED_SNAPSHOT_VERSIONS.includes(version)) {
    throw new SnapshotUnsupportedError(version);
  }
  const complete =
    typeof payload?.guild === 'object' &&
    payload.guild !== null &&
    Array.isArray(payload.roles) &&
    Array.isArray(payload.channels) &&
    Array.isArray(payload.permission_overrides);
  if (!complete) throw new SnapshotUnsupportedError(version);
  return payload as SnapshotPayload;
}
