import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { liftedPermissions, lockedPermissions } from './lockdown-permissions';

const s = (bits: bigint) => bits.toString();

describe(lockedPermissions.name, () => {
  it('takes SEND_MESSAGES and nothing else', () => {
    expect(lockedPermissions(s(P.SendMessages | P.ViewChannel | P.AddReactions))).toBe(
      s(P.ViewChannel | P.AddReactions),
    );
  });

  it('has nothing to take when @everyone cannot send messages', () => {
    expect(lockedPermissions(s(P.ViewChannel))).toBeNull();
  });
});

describe(liftedPermissions.name, () => {
  const before = s(P.SendMessages | P.ViewChannel | P.AddReactions);
  const set = s(P.ViewChannel | P.AddReactions);

  it('gives back exactly what was there when nobody changed @everyone meanwhile', () => {
    expect(liftedPermissions({ before, set, current: set })).toBe(before);
  });

  it('keeps a change made meanwhile and gives back only SEND_MESSAGES', () => {
    expect(liftedPermissions({ before, set, current: s(P.ViewChannel) })).toBe(
      s(P.ViewChannel | P.SendMessages),
    );
  });

  it('writes nothing when the lockdown took nothing, or SEND_MESSAGES is back already', () => {
    expect(liftedPermissions({ before: s(P.ViewChannel), set: null, current: s(P.ViewChannel) })).toBeNull();
    expect(liftedPermissions({ before, set, current: before })).toBeNull();
  });
});
