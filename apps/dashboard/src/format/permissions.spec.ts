import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { describeOverride, permissionNames } from './permissions';

describe('permissions in words', () => {
  it('names the bits of a permission set as the platform does', () => {
    expect(permissionNames((P.ViewChannel | P.SendMessages | P.ManageGuild).toString())).toEqual([
      'Manage Server',
      'View Channel',
      'Send Messages',
    ]);
    expect(permissionNames('0')).toEqual([]);
    expect(permissionNames('not a number')).toEqual([]);
  });

  it('reads an override as a sentence, by role name or member', () => {
    const roles = new Map([['10', 'Moderator']]);
    expect(
      describeOverride(
        { id: '10', type: 'role', allow: P.ViewChannel.toString(), deny: P.SendMessages.toString() },
        roles,
      ),
    ).toBe('@Moderator: allow View Channel; deny Send Messages');
    expect(
      describeOverride(
        { id: '42', type: 'member', allow: (P.ViewChannel | P.AddReactions).toString(), deny: '0' },
        roles,
      ),
    ).toBe('member 42: allow Add Reactions, View Channel');
    expect(describeOverride({ id: '99', type: 'role', allow: '0', deny: '0' }, roles)).toBe(
      '@role 99: no change from the channel',
    );
    expect(describeOverride({ id: '7', type: 'role', allow: '0', deny: '1024' }, roles, '@everyone')).toBe(
      '@everyone: deny View Channel',
    );
  });
});
