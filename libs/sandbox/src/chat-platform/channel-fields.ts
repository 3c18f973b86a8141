import type { FakeChannel } from './platform-state';

/** The type-dependent channel fields. */
export type TypeSpecificField = 'topic' | 'rate_limit_per_user' | 'bitrate' | 'user_limit';

/** Which fields each guild channel type has (a category none, voice no topic, text no bitrate). */
const FIELDS_BY_TYPE: Record<number, readonly TypeSpecificField[]> = {
  0: ['topic', 'rate_limit_per_user'],
  2: ['bitrate', 'user_limit', 'rate_limit_per_user'],
  4: [],
  5: ['topic'],
  13: ['bitrate', 'user_limit', 'rate_limit_per_user'],
  15: ['topic', 'rate_limit_per_user'],
};

const DEFAULT_BITRATE = 64_000;

export function channelHasField(type: number, field: TypeSpecificField): boolean {
  return FIELDS_BY_TYPE[type]?.includes(field) ?? false;
}

export function typeSpecificFields(type: number): readonly TypeSpecificField[] {
  return FIELDS_BY_TYPE[type] ?? [];
}

/** After a create or a type change: fields the type lacks become null, missing ones get defaults. */
export function fitFieldsToType(channel: FakeChannel): void {
  const has = (field: TypeSpecificField) => channelHasField(channel.type, field);
  channel.topic = has('topic') ? channel.topic : null;
  channel.rate_limit_per_user = has('rate_limit_per_user') ? (channel.rate_limit_per_user ?? 0) : null;
  channel.bitrate = has('bitrate') ? (channel.bitrate ?? DEFAULT_BITRATE) : null;
  channel.user_limit = has('user_limit') ? (channel.user_limit ?? 0) : null;
}
