import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { restoreMemberRoles } from './member-roles-step';

/** RestoreMemberRoles against the sandbox platform. */
describe(restoreMemberRoles.name, () => {
  const sandbox = stepSandbox();

  it('gives a member back the roles taken since, keeping the one given since', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    const alice = seeded.members.alice;
    const before = (await sandbox.client.getMember(seeded.guildId, alice)).roles;
    expect(before.length).toBeGreaterThan(0);
    for (const role of before) await sandbox.client.removeMemberRole(seeded.guildId, alice, role);
    await sandbox.client.addMemberRole(seeded.guildId, alice, seeded.roles.Muted);

    const run = await sandbox.runToEnd(restoreMemberRoles, seeded.guildId, target, ['member_roles']);

    expect(run.updated).toBe(1);
    expect(run.calls.reduce((sum, call) => sum + (call.assigned ?? 0), 0)).toBe(before.length);
    const after = (await sandbox.client.getMember(seeded.guildId, alice)).roles;
    expect([...after].sort()).toEqual([...before, seeded.roles.Muted].sort());
  });
});
