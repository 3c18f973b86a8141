import { ALL_PERMISSIONS, PERMISSION } from '@lib/chat-platform';
import { RESTORE_SCOPES } from '@lib/contracts';
import { missingPermissionError, refusedScopes } from './scope-permissions';

describe(refusedScopes.name, () => {
  it('refuses each scope whose platform permission is not held, naming what is missing', () => {
    const manager = PERMISSION.MANAGE_GUILD | PERMISSION.VIEW_CHANNEL;
    expect(refusedScopes(manager, RESTORE_SCOPES)).toEqual([
      { scope: 'roles', missing: ['MANAGE_ROLES'] },
      { scope: 'channels', missing: ['MANAGE_CHANNELS'] },
      { scope: 'permission_overrides', missing: ['MANAGE_CHANNELS', 'MANAGE_ROLES'] },
      { scope: 'member_roles', missing: ['MANAGE_ROLES'] },
      { scope: 'bans', missing: ['BAN_MEMBERS'] },
      { scope: 'emojis', missing: ['CREATE_GUILD_EXPRESSIONS', 'MANAGE_GUILD_EXPRESSIONS'] },
      { scope: 'stickers', missing: ['CREATE_GUILD_EXPRESSIONS', 'MANAGE_GUILD_EXPRESSIONS'] },
      { scope: 'webhooks', missing: ['MANAGE_WEBHOOKS'] },
      { scope: 'onboarding', missing: ['MANAGE_ROLES'] },
    ]);
    expect(refusedScopes(manager | PERMISSION.MANAGE_CHANNELS, ['permission_overrides'])).toEqual([
      { scope: 'permission_overrides', missing: ['MANAGE_ROLES'] },
    ]);
  });

  it('refuses nothing to whom holds every permission (the owner, an administrator)', () => {
    expect(refusedScopes(ALL_PERMISSIONS, RESTORE_SCOPES)).toEqual([]);
  });
});

describe(missingPermissionError.name, () => {
  it('is a 403 problem naming the scope and the platform’s name of the permission', () => {
    const error = missingPermissionError([{ scope: 'bans', missing: ['BAN_MEMBERS'] }], 'Restoring');
    expect(error).toMatchObject({
      code: 'ErrMissingPlatformPermission',
      status: 403,
      message: 'Restoring bans needs the Ban Members permission on the server, which you do not hold there.',
      extensions: { scope: 'bans', missing_permissions: ['BAN_MEMBERS'] },
    });
  });
});
