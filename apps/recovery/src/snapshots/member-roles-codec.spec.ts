import { decodeMemberRoles, encodeMemberRoles, MalformedMemberRolesError } from './member-roles-codec';

/** A snowflake of `ms` after the platform's epoch, with `n` in the low bits. */
const snowflake = (ms: number, n = 0) => ((BigInt(ms) << 22n) | BigInt(n)).toString();

describe('members’ roles codec', () => {
  it('gives back who held which role, leaving out members without roles', () => {
    const members = [
      { id: snowflake(5_000), roles: ['20', '10'] },
      { id: snowflake(1_000), roles: ['10'] },
      { id: snowflake(9_000), roles: [] },
    ];

    const decoded = decodeMemberRoles(encodeMemberRoles(members));

    expect(Object.fromEntries(decoded)).toEqual({
      [snowflake(1_000)]: ['10'],
      [snowflake(5_000)]: ['10', '20'],
    });
  });

  it('keeps ids past 2^53 exactly', () => {
    const id = '1302934672839229512';
    expect([...decodeMemberRoles(encodeMemberRoles([{ id, roles: ['1'] }])).keys()]).toEqual([id]);
  });

  it('writes each member once and each role membership in a few bytes', () => {
    const encoded = encodeMemberRoles([
      { id: snowflake(1_000), roles: ['10', '20'] },
      { id: snowflake(1_001), roles: ['10'] },
    ]);
    expect(encoded.roles).toEqual({ '10': '0,1', '20': '0' });
    expect(encoded.members.split(',')).toHaveLength(2);
  });

  it('keeps 100,000 members holding 3 roles each within 2.5 MB', () => {
    const roles = Array.from({ length: 40 }, (_, i) => String(900 + i));
    // Members who joined over five years, a few a minute.
    const members = Array.from({ length: 100_000 }, (_, i) => ({
      id: snowflake(1_600_000_000_000 - 1_420_070_400_000 + i * 1_577_000, i % 4096),
      roles: [roles[i % 40], roles[(i * 7 + 3) % 40], roles[(i * 13 + 5) % 40]],
    }));

    const size = JSON.stringify(encodeMemberRoles(members)).length;

    expect(size).toBeLessThan(2_500_000);
  });

  it.each([
    ['not an object', 'x'],
    ['no members', { roles: {} }],
    ['a role naming a member past the list', { members: '1', roles: { '10': '0,1' } }],
    ['a repeated member', { members: '1,0', roles: {} }],
    ['a role id that is not a snowflake', { members: '1', roles: { abc: '0' } }],
    ['an entry that is not base 36', { members: '1,-2', roles: {} }],
    ['an id past 64 bits', { members: 'zzzzzzzzzzzzz', roles: {} }],
  ])('refuses %s', (_, encoded) => {
    expect(() => decodeMemberRoles(encoded)).toThrow(MalformedMemberRolesError);
  });
});
