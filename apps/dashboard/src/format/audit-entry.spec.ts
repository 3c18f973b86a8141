import { AUDIT_KINDS, type AuditNames, describeAuditEntry } from './audit-entry';

const ME = '0190a000-0000-7000-8000-0000000000aa';
const OTHER = '0190a000-0000-7000-8000-0000000000bb';
const SNAP = '0190a000-0000-7000-8000-0000000000cc';
const names: AuditNames = { myUserId: ME, snapshots: new Map([[SNAP, 'before the raid']]) };

const entry = (event_type: string, payload: Record<string, unknown>) => ({ event_type, payload });

describe(describeAuditEntry.name, () => {
  it('reads a restore start with who, which snapshot and what parts', () => {
    const started = entry('RestoreStarted', {
      requested_by_user: ME,
      snapshot_id: SNAP,
      scope: ['roles', 'channels'],
    });
    expect(describeAuditEntry(started, names)).toBe(
      "You started a restore of 'before the raid' (roles, channels)",
    );
    expect(
      describeAuditEntry({ ...started, payload: { ...started.payload, requested_by_user: OTHER } }, names),
    ).toBe("Another user started a restore of 'before the raid' (roles, channels)");
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
    expect(
      describeAuditEntry(
        entry('RestoreCompleted', {
          requested_by_user: OTHER,
          snapshot_id: SNAP,
          duration_ms: 900,
          result_summary: {},
        }),
        names,
      ),
    ).toBe(
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
