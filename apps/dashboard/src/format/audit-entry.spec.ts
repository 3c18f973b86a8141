import {
  AUDIT_KINDS,
  type AuditNames,
  describeAuditEntry,
  namedUsers,
  platformUserLabel,
} from './audit-entry';

const ME = '0190a000-0000-7000-8000-0000000000aa';
const OTHER = '0190a000-0000-7000-8000-0000000000bb';
const SNAP = '0190a000-0000-7000-8000-0000000000cc';
const names: AuditNames = { myUserId: ME, snapshots: new Map([[SNAP, 'before the raid']]) };

const entry = (event_type: string, payload: Record<string, unknown>) => ({ event_type, payload });
/** `user` starting a restore of the roles and channels of the snapshot 'before the raid'. */
const restoreStarted = (user: string) =>
  entry('RestoreStarted', { requested_by_user: user, snapshot_id: SNAP, scope: ['roles', 'channels'] });
/** A restore of 'before the raid' by `user` that found nothing to change and took under a second. */
const restoreCompletedIdle = (user: string) =>
  entry('RestoreCompleted', {
    requested_by_user: user,
    snapshot_id: SNAP,
    duration_ms: 900,
    result_summary: {},
  });
/** `requester` dropping the scheduled downgrade to Pro of `payer`'s Enterprise subscription. */
const downgradeDropped = (payer: string, requester = payer) =>
  entry('PlanDowngradeCanceled', {
    payer_user_id: payer,
    requested_by_user: requester,
    plan_code: 'ENTERPRISE',
    dropped_plan_code: 'PRO',
  });

describe(describeAuditEntry.name, () => {
  it('reads a restore start with who, which snapshot and what parts', () => {
    const started = restoreStarted(ME);
    expect(describeAuditEntry(started, names)).toBe(
      "You started a restore of 'before the raid' (roles, channels)",
    );
    expect(describeAuditEntry(restoreStarted(OTHER), names)).toBe(
      "Another user started a restore of 'before the raid' (roles, channels)",
    );
    expect(
      describeAuditEntry({ ...started, payload: { ...started.payload, snapshot_id: 'unknown' } }, names),
    ).toBe('You started a restore of a snapshot (roles, channels)');
  });

  it('counts what a completed restore changed, and says why one failed or stopped', () => {
    expect(
      describeAuditEntry(
        entry('RestoreCompleted', {
          requested_by_user: ME,
          snapshot_id: SNAP,
          duration_ms: 83_000,
          result_summary: {
            roles_created: 2,
            channels_created: 1,
            channels_deleted: 1,
            overrides_applied: 0,
          },
        }),
        names,
      ),
    ).toBe(
      "The restore of 'before the raid' that you started completed in 1 min 23 s: 2 roles created, 1 channel created, 1 channel deleted",
    );
    expect(describeAuditEntry(restoreCompletedIdle(OTHER), names)).toBe(
      "The restore of 'before the raid' that another user started completed in 1 s: nothing needed changing",
    );
    expect(
      describeAuditEntry(
        entry('RestoreFailed', { snapshot_id: SNAP, error_message: 'Missing Permissions' }),
        names,
      ),
    ).toBe("The restore of 'before the raid' failed: Missing Permissions");
    expect(
      describeAuditEntry(entry('RestoreCanceled', { snapshot_id: SNAP, reason: 'guild_deleted' }), names),
    ).toBe("The restore of 'before the raid' stopped: the guild was deleted");
    expect(
      describeAuditEntry(
        entry('RestoreCanceled', { snapshot_id: SNAP, reason: 'user', requested_by_user: ME }),
        names,
      ),
    ).toBe("You canceled the restore of 'before the raid'");
  });

  it('names who or what took a snapshot', () => {
    const taken = { snapshot_id: SNAP, created_by_user: ME, size: 12_500 };
    expect(describeAuditEntry(entry('SnapshotCreated', { ...taken, trigger: 'manual' }), names)).toBe(
      "You took the snapshot 'before the raid' (12.5 KB)",
    );
    expect(
      describeAuditEntry(entry('SnapshotCreated', { ...taken, trigger: 'manual', snapshot_id: 'x' }), names),
    ).toBe('You took a snapshot (12.5 KB)');
    expect(describeAuditEntry(entry('SnapshotCreated', { ...taken, trigger: 'scheduled' }), names)).toBe(
      'guildkeeper took the scheduled snapshot (12.5 KB)',
    );
    expect(describeAuditEntry(entry('SnapshotCreated', { ...taken, trigger: 'antinuke' }), names)).toBe(
      'AntiNuke took a snapshot during a raid (12.5 KB)',
    );
  });

  it('tells who changed AntiNuke, what, and what became of it', () => {
    const named = { ...names, platformUsers: new Map([['300000000000000009', 'mallory']]) };
    const change = (outcome: string, actor = '300000000000000009') =>
      entry('AntiNukeSettingsChanged', {
        outcome,
        actor_platform_user_id: actor,
        requested_by_platform_user_id: '300000000000000009',
        before: {
          enabled: true,
          exempt_user_ids: [],
          threshold: 3,
          window_seconds: 10,
          auto_action_enabled: false,
        },
        after: {
          enabled: false,
          exempt_user_ids: [],
          threshold: 10,
          window_seconds: 10,
          auto_action_enabled: false,
        },
        applies_at: '2026-11-23T07:05:00.000Z',
      });
    expect(describeAuditEntry(change('pending'), named)).toMatch(
      /^mallory asked to loosen AntiNuke \(AntiNuke on → off, threshold 3 → 10\); it applies on .+ unless the owner refuses it$/,
    );
    expect(describeAuditEntry(change('refused', '200000000000000001'), named)).toBe(
      'user 200000000000000001 refused the AntiNuke change mallory asked for',
    );
    expect(describeAuditEntry(change('self_exemption_refused'), named)).toBe(
      'mallory tried to exempt themself from AntiNuke and was refused',
    );
    expect(describeAuditEntry(change('applied_after_delay'), named)).toBe(
      'The AntiNuke change mallory asked for applied after its delay (AntiNuke on → off, threshold 3 → 10)',
    );
  });

  it('tells who deleted a snapshot and who undid it', () => {
    const named = { ...names, platformUsers: new Map([['300000000000000009', 'mallory']]) };
    expect(
      describeAuditEntry(
        entry('SnapshotDeleted', {
          snapshot_id: SNAP,
          deleted_by_platform_user_id: '300000000000000009',
          purge_after: '2026-11-29T07:05:00.000Z',
        }),
        named,
      ),
    ).toMatch(/^mallory deleted 'before the raid'; the owner can undo it until .+$/);
    expect(
      describeAuditEntry(
        entry('SnapshotUndeleted', {
          snapshot_id: SNAP,
          undeleted_by_platform_user_id: '300000000000000009',
        }),
        named,
      ),
    ).toBe("mallory undid the delete of 'before the raid'");
  });

  it('tells what AntiNuke saw and did', () => {
    const incident = { actor_platform_user_id: '300000000000000009', action: 'channel_delete', count: 3 };
    expect(describeAuditEntry(entry('AntiNukeIncidentOpened', incident), names)).toBe(
      'AntiNuke saw user 300000000000000009 delete 3 channels and opened an incident',
    );
    expect(
      describeAuditEntry(
        entry('AntiNukeIncidentOpened', {
          ...incident,
          action: 'member_ban',
          count: 1,
          auto_action_taken: true,
        }),
        names,
      ),
    ).toBe(
      "AntiNuke saw user 300000000000000009 ban a member and opened an incident; the user's roles were taken away",
    );
  });

  it('tells who locked the guild down and how the lockdown ended', () => {
    const started = entry('LockdownStarted', {
      started_by_user: ME,
      incident_id: null,
      lockdown_until: '2026-11-22T08:05:00Z',
      send_messages_taken: true,
    });
    expect(describeAuditEntry(started, names)).toMatch(
      /^You locked the guild down until .+: invites and DMs paused, @everyone cannot send messages$/,
    );
    expect(
      describeAuditEntry(
        entry('LockdownStarted', { incident_id: SNAP, lockdown_until: '2026-11-22T08:05:00Z' }),
        names,
      ),
    ).toMatch(/^AntiNuke \(on an incident\) locked the guild down until .+: invites and DMs paused$/);
    expect(describeAuditEntry(entry('LockdownLifted', { reason: 'expired' }), names)).toBe(
      'The lockdown lifted itself when its time was up',
    );
    expect(
      describeAuditEntry(entry('LockdownLifted', { reason: 'user', lifted_by_user: OTHER }), names),
    ).toBe('Another user lifted the lockdown');
  });

  it('reads the plan and payment history in plain words', () => {
    expect(
      describeAuditEntry(
        entry('SubscriptionStarted', { payer_user_id: ME, plan_code: 'PRO', amount_krw: 9_900 }),
        names,
      ),
    ).toBe('You subscribed to the Pro plan (9,900 KRW)');
    expect(
      describeAuditEntry(
        entry('PlanUpgraded', { payer_user_id: OTHER, old_plan_code: 'PRO', new_plan_code: 'ENTERPRISE' }),
        names,
      ),
    ).toBe('Another user upgraded the plan from Pro to Enterprise');
    expect(
      describeAuditEntry(
        entry('PaymentSucceeded', { amount_krw: 29_900, plan_code: 'ENTERPRISE', cycle: 2 }),
        names,
      ),
    ).toBe('A payment of 29,900 KRW for the Enterprise plan succeeded (renewal 2)');
    expect(
      describeAuditEntry(
        entry('SubscriptionCanceledPeriodEnd', { plan_code: 'PRO', reason: 'payment_failed' }),
        names,
      ),
    ).toBe('The Pro subscription ended after its payments failed');
    expect(
      describeAuditEntry(entry('LicenseDowngraded', { old_plan_code: 'PRO', new_plan_code: 'FREE' }), names),
    ).toBe("The guild's plan is now Free (was Pro)");
  });

  it('says who dropped a scheduled downgrade, and which plan renews', () => {
    expect(describeAuditEntry(downgradeDropped(ME), names)).toBe(
      'You dropped the scheduled downgrade to Pro: the Enterprise plan renews as it is',
    );
    expect(describeAuditEntry(downgradeDropped(ME, OTHER), names)).toBe(
      'Another user dropped the scheduled downgrade to Pro: the Enterprise plan renews as it is',
    );
    expect(AUDIT_KINDS.PlanDowngradeCanceled).toBe('Downgrade dropped');
  });

  describe('with the names the guild knows its members by', () => {
    const ACTOR = '300000000000000009';
    const PAYER = '300000000000000001';
    const named: AuditNames = {
      ...names,
      users: new Map([[OTHER, 'alice']]),
      platformUsers: new Map([
        [ACTOR, 'mallory'],
        [PAYER, 'bob'],
      ]),
    };

    it('names other people, and still says "You" for the reader', () => {
      expect(describeAuditEntry(restoreStarted(OTHER), named)).toBe(
        "alice started a restore of 'before the raid' (roles, channels)",
      );
      expect(describeAuditEntry(restoreStarted(ME), named)).toBe(
        "You started a restore of 'before the raid' (roles, channels)",
      );
      expect(describeAuditEntry(restoreCompletedIdle(OTHER), named)).toBe(
        "The restore of 'before the raid' that alice started completed in 1 s: nothing needed changing",
      );
      expect(describeAuditEntry(downgradeDropped(OTHER), named)).toBe(
        'alice dropped the scheduled downgrade to Pro: the Enterprise plan renews as it is',
      );
    });

    it('names a user by the platform id the entry carries when our id is not known', () => {
      const subscribed = entry('SubscriptionStarted', {
        payer_user_id: '0190a000-0000-7000-8000-0000000000dd',
        payer_platform_user_id: PAYER,
        plan_code: 'PRO',
        amount_krw: 9_900,
      });
      expect(describeAuditEntry(subscribed, named)).toBe('bob subscribed to the Pro plan (9,900 KRW)');
    });

    it("names AntiNuke's actor", () => {
      const incident = {
        actor_platform_user_id: ACTOR,
        action: 'channel_delete',
        count: 3,
        auto_action_taken: true,
      };
      expect(describeAuditEntry(entry('AntiNukeIncidentOpened', incident), named)).toBe(
        "AntiNuke saw mallory delete 3 channels and opened an incident; mallory's roles were taken away",
      );
    });

    it('falls back to the wording without names for anyone whose name is unknown', () => {
      const unknown = '0190a000-0000-7000-8000-0000000000ee';
      expect(
        describeAuditEntry(
          entry('PlanUpgraded', {
            payer_user_id: unknown,
            old_plan_code: 'PRO',
            new_plan_code: 'ENTERPRISE',
          }),
          named,
        ),
      ).toBe('Another user upgraded the plan from Pro to Enterprise');
      expect(
        describeAuditEntry(
          entry('AntiNukeIncidentOpened', {
            actor_platform_user_id: '300000000000000077',
            action: 'role_delete',
            count: 1,
          }),
          named,
        ),
      ).toBe('AntiNuke saw user 300000000000000077 delete a role and opened an incident');
    });

    it('lists who a page names, each once and without the reader, to ask for their names', () => {
      expect(
        namedUsers(
          [
            entry('RestoreStarted', { requested_by_user: OTHER }),
            entry('RestoreCompleted', { requested_by_user: OTHER, requested_by_platform_user_id: PAYER }),
            entry('SnapshotCreated', { created_by_user: ME, created_by_platform_user_id: null }),
            entry('AntiNukeIncidentOpened', { actor_platform_user_id: ACTOR }),
            entry('PaymentSucceeded', { amount_krw: 9_900 }),
          ],
          ME,
        ),
      ).toEqual({ userIds: [OTHER], platformUserIds: [PAYER, ACTOR].sort() });
    });

    it('labels a platform user by name and id, or by id alone', () => {
      expect(platformUserLabel(PAYER, named.platformUsers)).toBe(`bob (user ${PAYER})`);
      expect(platformUserLabel('300000000000000077', named.platformUsers)).toBe('user 300000000000000077');
      expect(platformUserLabel(null, named.platformUsers)).toBe('user unknown');
    });
  });

  it('survives an entry of an older producer or a kind it does not know', () => {
    expect(describeAuditEntry(entry('RestoreStarted', {}), names)).toBe(
      'Another user started a restore of a snapshot',
    );
    expect(describeAuditEntry(entry('SomethingNew', { a: 1 }), names)).toBe('SomethingNew');
  });

  it('has a label for every kind the filter offers', () => {
    for (const [kind, label] of Object.entries(AUDIT_KINDS)) {
      expect(label).toMatch(/^[A-Z]/);
      expect(describeAuditEntry(entry(kind, {}), names)).not.toBe(kind);
    }
  });
});
