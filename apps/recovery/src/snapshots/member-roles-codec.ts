/**
 * Members' roles as a snapshot keeps them (payload version 2): small enough that a guild of 100,000
 * members holding 3 roles each stays well inside the snapshot limit.
 *
 * - `members`: the ids of the members holding at least one role, ascending, each written as its
 *   difference from the one before, in base 36 and joined by commas. Snowflakes grow with time, so
 *   the differences are much shorter than the ids (about 10 characters instead of 19).
 * - `roles`: for each role, the positions in `members` of the members holding it, ascending, each
 *   as its difference from the one before (mostly one or two characters).
 *
 * A role's members are then about three bytes each, and each member's id about eleven once.
 */
export interface EncodedMemberRoles {
  members: string;
  roles: Record<string, string>;
}

/** A member and the roles they hold (platform ids, without @everyone). */
export interface MemberRoles {
  id: string;
  roles: readonly string[];
}

export class MalformedMemberRolesError extends Error {
  constructor(detail: string) {
    super(`members' roles in the snapshot are malformed: ${detail}`);
  }
}

export function encodeMemberRoles(members: readonly MemberRoles[]): EncodedMemberRoles {
  const holders = members
    .filter((member) => member.roles.length > 0)
    .map((member) => ({ id: BigInt(member.id), roles: member.roles }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const positions = new Map<string, number[]>();
  holders.forEach((member, index) => {
    for (const roleId of new Set(member.roles)) {
      const list = positions.get(roleId) ?? [];
      list.push(index);
      positions.set(roleId, list);
    }
  });
  const roles: Record<string, string> = {};
  for (const roleId of [...positions.keys()].sort())
    roles[roleId] = deltas(positions.get(roleId)!.map(BigInt));
  return { members: deltas(holders.map((member) => member.id)), roles };
}

/** Member id -> the role ids they held. Throws MalformedMemberRolesError on anything inconsistent. */
export function decodeMemberRoles(encoded: unknown): Map<string, string[]> {
  if (typeof encoded !== 'object' || encoded === null) throw new MalformedMemberRolesError('not an object');
  const { members, roles } = encoded as Partial<EncodedMemberRoles>;
  if (typeof members !== 'string' || typeof roles !== 'object' || roles === null || Array.isArray(roles)) {
    throw new MalformedMemberRolesError('members or roles missing');
  }
  const ids = undeltas(members).map(String);
  const held = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const [roleId, list] of Object.entries(roles)) {
    if (!/^\d{1,20}$/.test(roleId) || typeof list !== 'string') {
      throw new MalformedMemberRolesError(`role ${JSON.stringify(roleId)}`);
    }
    for (const position of undeltas(list)) {
      const id = ids[Number(position)];
      if (id === undefined) throw new MalformedMemberRolesError(`role ${roleId} names member ${position}`);
      held.get(id)!.push(roleId);
    }
  }
  return held;
}

/** Ascending numbers as base-36 differences joined by commas (the first from 0). */
function deltas(values: readonly bigint[]): string {
  let previous = 0n;
  return values
    .map((value) => {
      const delta = (value - previous).toString(36);
      previous = value;
      return delta;
    })
    .join(',');
}

function undeltas(text: string): bigint[] {
  if (text === '') return [];
  let value = 0n;
  return text.split(',').map((part, index) => {
    if (!/^[0-9a-z]{1,13}$/.test(part)) throw new MalformedMemberRolesError(`entry ${index}`);
    const delta = parseBase36(part);
    // Strictly ascending after the first: a zero difference would name one member twice.
    if (index > 0 && delta === 0n) throw new MalformedMemberRolesError(`entry ${index} repeats`);
    value += delta;
    if (value >= 1n << 64n) throw new MalformedMemberRolesError(`entry ${index} is past a snowflake`);
    return value;
  });
}

function parseBase36(text: string): bigint {
  let value = 0n;
  for (const digit of text) value = value * 36n + BigInt(parseInt(digit, 36));
  return value;
}
