import type { DomainEvent, EventPayloads, EventType } from '@lib/contracts';
import {
  formatDuration,
  formatKrw,
  formatKstDate,
  formatKstDateTime,
  planDm,
  testDmContent,
} from './templates';

const PAYER = '80351110224678912';
const PAYER_ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

function event<T extends EventType>(type: T, payload: EventPayloads[T]): DomainEvent {
  return {
    id: '0193a1b2-0000-7000-8000-000000000001',
    type,
    version: 1,
    occurred_at: '2026-11-22T07:05:00.000Z',
    producer: 'billing',
    aggregate_type: 'subscription',
    aggregate_id: 'sub-1',
    guild_id: 'guild-1',
    correlation_id: null,
    payload,
  };
}

const summary = {
  roles_created: 2,
  roles_updated: 1,
  roles_deleted: 0,
  channels_created: 5,
  channels_updated: 0,
  channels_deleted: 1,
  overrides_applied: 7,
  overrides_removed: 0,
  guild_settings_updated: 1,
  skipped: 0,
};

describe('formatting for Korean users', () => {
  it('writes won with thousands separators', () => {
    expect(formatKrw(29_900)).toBe('29,900원');
    expect(formatKrw(0)).toBe('0원');
  });

  it('writes dates in Korea Standard Time, whatever the server zone', () => {
    expect(formatKstDateTime('2026-11-22T07:05:00Z')).toBe('2026년 11월 22일 16:05 (KST)');
    // 15:30 UTC on the 21st is already the 22nd in Seoul.
    expect(formatKstDate('2026-12-21T15:30:00Z')).toBe('2026년 12월 22일');
  });

  it.each([
    [400, '0.4초'],
    [5_000, '5초'],
    [65_000, '1분 5초'],
    [120_000, '2분'],
    [7_380_000, '2시간 3분'],
  ])('writes %i ms as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe(planDm.name, () => {
  it('tells the restorer what changed, how long it took and where the pre-restore state is', () => {
    const dm = planDm(
      event('RestoreCompleted', {
        restore_job_id: 'job-1',
        snapshot_id: 'snap-1',
        requested_by_user: PAYER_ID,
        requested_by_platform_user_id: PAYER,
        guild_name: 'Raid Test',
        result_summary: summary,
        duration_ms: 65_000,
        pre_restore_snapshot_id: 'pre-1',
      }),
    );
    expect(dm).toMatchObject({
      template: 'restore.completed',
      recipientPlatformUserId: PAYER,
      preference: 'restore_notifications',
    });
    expect(dm!.content).toContain('**Raid Test** 서버 복구가 끝났습니다. (소요 시간 1분 5초)');
    expect(dm!.content).toContain('• 역할: 생성 2 · 수정 1 · 삭제 0');
    expect(dm!.content).toContain('`pre-1`');
  });

  const restore = {
    restore_job_id: 'job-1',
    snapshot_id: 'snap-1',
    requested_by_user: PAYER_ID,
    requested_by_platform_user_id: PAYER,
    guild_name: 'Raid Test',
  };
  const failed = (pre: {
    pre_restore_snapshot_id: string | null;
    pre_restore_snapshot_requested?: boolean;
  }) =>
    event('RestoreFailed', {
      ...restore,
      status: 'failed',
      error_code: 'PermissionDenied',
      error_message: 'Missing Permissions',
      ...pre,
    });
  const completed = (pre: {
    pre_restore_snapshot_id: string | null;
    pre_restore_snapshot_requested?: boolean;
  }) => event('RestoreCompleted', { ...restore, result_summary: summary, duration_ms: 65_000, ...pre });
  const NOT_MADE = '스냅샷은 만들지 못했습니다';

  it('counts members’ roles and bans only for a restore that put them back', () => {
    expect(planDm(completed({ pre_restore_snapshot_id: null }))!.content).not.toMatch(/멤버 역할|차단 해제/);
    const members = { members_updated: 120, member_roles_restored: 130, members_absent: 50, bans_lifted: 50 };
    const dm = planDm(
      event('RestoreCompleted', {
        ...restore,
        result_summary: { ...summary, ...members },
        duration_ms: 65_000,
        pre_restore_snapshot_id: null,
      }),
    );
    expect(dm!.content).toContain('• 멤버 역할: 120명에게 역할 130개 복구 · 서버를 떠난 50명은 제외');
    expect(dm!.content).toContain('• 차단 해제: 50');
  });

  it('counts emojis, stickers, server images, AutoMod rules and onboarding only for a restore that put them back', () => {
    expect(planDm(completed({ pre_restore_snapshot_id: null }))!.content).not.toMatch(
      /이모지|스티커|서버 이미지|자동 검열|온보딩/,
    );
    const expressions = {
      emojis_created: 3,
      emojis_updated: 1,
      emojis_deleted: 1,
      stickers_created: 2,
      stickers_updated: 0,
      stickers_deleted: 0,
      guild_images_updated: 2,
      automod_rules_created: 1,
      automod_rules_updated: 2,
      automod_rules_deleted: 0,
      onboarding_prompts_created: 2,
      onboarding_updated: 3,
      onboarding_prompts_deleted: 1,
    };
    const dm = planDm(
      event('RestoreCompleted', {
        ...restore,
        result_summary: { ...summary, ...expressions },
        duration_ms: 65_000,
        pre_restore_snapshot_id: null,
      }),
    );
    expect(dm!.content).toContain('• 이모지: 생성 3 · 수정 1 · 삭제 1');
    expect(dm!.content).toContain('• 스티커: 생성 2 · 수정 0 · 삭제 0');
    expect(dm!.content).toContain('• 서버 이미지: 복구 2');
    expect(dm!.content).toContain('• 자동 검열 규칙: 생성 1 · 수정 2 · 삭제 0');
    expect(dm!.content).toContain('• 환영 화면·온보딩: 질문 생성 2 · 수정 3 · 질문 삭제 1');
  });

  it('counts the webhooks a restore put back and says where their new addresses are, never what they are', () => {
    expect(planDm(completed({ pre_restore_snapshot_id: null }))!.content).not.toMatch(/웹후크/);
    const dm = planDm(
      event('RestoreCompleted', {
        ...restore,
        result_summary: { ...summary, webhooks_created: 2, webhooks_updated: 1, webhooks_deleted: 3 },
        duration_ms: 65_000,
        pre_restore_snapshot_id: null,
      }),
    );
    expect(dm!.content).toContain('• 웹후크: 생성 2 · 수정 1 · 삭제 3');
    expect(dm!.content).toContain('새 주소를 받은 웹후크 2개: 복구 작업 페이지에 새 주소가 있습니다');
    expect(dm!.content).not.toMatch(/https?:\/\//);
  });

  it('reports a failure with its reason, and that the pre-restore snapshot asked for could not be made', () => {
    const dm = planDm(failed({ pre_restore_snapshot_id: null, pre_restore_snapshot_requested: true }));
    expect(dm?.template).toBe('restore.failed');
    expect(dm!.content).toContain('사유: Missing Permissions');
    expect(dm!.content).toContain(NOT_MADE);
    expect(
      planDm(completed({ pre_restore_snapshot_id: null, pre_restore_snapshot_requested: true }))!.content,
    ).toContain(NOT_MADE);
  });

  it('says nothing about a pre-restore snapshot nobody asked for', () => {
    for (const pre of [
      { pre_restore_snapshot_id: null, pre_restore_snapshot_requested: false },
      // An event from before the request was recorded: unknown, so not claimed to have failed.
      { pre_restore_snapshot_id: null },
    ]) {
      for (const dm of [planDm(failed(pre)), planDm(completed(pre))]) {
        expect(dm!.content).not.toContain(NOT_MADE);
        expect(dm!.content).not.toContain('복구 직전');
      }
    }
    expect(
      planDm(failed({ pre_restore_snapshot_id: 'pre-1', pre_restore_snapshot_requested: true }))!.content,
    ).toContain('`pre-1`');
  });

  it('has its own message for a guild deleted during the restore, and none for a user cancel', () => {
    const canceled = (reason: 'user' | 'guild_deleted') =>
      event('RestoreCanceled', {
        ...restore,
        reason,
        pre_restore_snapshot_id: 'pre-1',
        pre_restore_snapshot_requested: true,
      });
    const deleted = planDm(canceled('guild_deleted'));
    expect(deleted).toMatchObject({ template: 'restore.guild_deleted', recipientPlatformUserId: PAYER });
    expect(deleted!.content).toContain('**Raid Test** 서버가 복구 도중 삭제되어');
    expect(planDm(canceled('user'))).toBeNull();
  });

  it('reads a cancel that an older release published as RestoreFailed the same way', () => {
    const legacy = (code: string) =>
      event('RestoreFailed', {
        ...restore,
        status: 'canceled',
        error_code: code,
        error_message: code === 'guild_deleted' ? 'guild deleted' : 'Canceled by the user.',
        pre_restore_snapshot_id: null,
      } as unknown as EventPayloads['RestoreFailed']);
    expect(planDm(legacy('guild_deleted'))?.template).toBe('restore.guild_deleted');
    expect(planDm(legacy('canceled'))).toBeNull();
  });

  it('DMs a snapshot only when someone asked for it', () => {
    const created = (trigger: 'manual' | 'scheduled') =>
      event('SnapshotCreated', {
        snapshot_id: 'snap-1',
        guild_id: 'guild-1',
        trigger,
        created_by_user: PAYER_ID,
        guild_name: 'Raid Test',
        created_by_platform_user_id: trigger === 'manual' ? PAYER : null,
        size: 2_048,
      });
    expect(planDm(created('manual'))).toMatchObject({
      template: 'snapshot.created',
      recipientPlatformUserId: PAYER,
    });
    expect(planDm(created('manual'))!.content).toContain('2.0 KB');
    expect(planDm(created('scheduled'))).toBeNull();
  });

  it('sends subscription.started to the payer under the payment preference, with amount and period', () => {
    const dm = planDm(
      event('SubscriptionStarted', {
        subscription_id: 'sub-1',
        license_id: null,
        guild_id: 'guild-1',
        payer_user_id: PAYER_ID,
        payer_platform_user_id: PAYER,
        guild_name: 'Raid Test',
        plan_code: 'PRO',
        amount_krw: 9_900,
        current_period_start: '2026-11-22T07:05:00Z',
        current_period_end: '2026-12-22T07:05:00Z',
        next_billing_at: '2026-12-22T07:12:00Z',
      }),
    );
    expect(dm).toMatchObject({
      template: 'subscription.started',
      recipientPlatformUserId: PAYER,
      recipientUserId: PAYER_ID,
      preference: 'payment_notifications',
    });
    expect(dm!.content).toContain('결제 금액: 9,900원');
    expect(dm!.content).toContain('이용 기간: 2026년 11월 22일 ~ 2026년 12월 22일');
    expect(dm!.content).toContain('다음 결제 예정: 2026년 12월 22일 16:12 (KST)');
  });

  it('tells the payer why a subscription ended', () => {
    const ended = (reason: 'period_end' | 'payment_failed') =>
      planDm(
        event('SubscriptionCanceledPeriodEnd', {
          subscription_id: 'sub-1',
          license_id: null,
          payer_user_id: PAYER_ID,
          payer_platform_user_id: PAYER,
          guild_name: 'Raid Test',
          reason,
          plan_code: 'ENTERPRISE',
        }),
      )!;
    expect(ended('payment_failed').content).toContain('결제가 계속 실패하여');
    expect(ended('period_end').content).toContain('예약하신 대로 종료');
    expect(ended('period_end').template).toBe('subscription.ended');
  });

  it('tells the payer which card each of their other subscriptions is charged on after a new card', () => {
    const changed = (previous: string | null) =>
      planDm(
        event('SubscriptionCardChanged', {
          subscription_id: 'sub-1',
          license_id: 'lic-1',
          billing_key_id: 'key-1',
          payer_user_id: PAYER_ID,
          payer_platform_user_id: PAYER,
          guild_name: 'Raid Test',
          plan_code: 'PRO',
          card_company: '국민',
          card_last4: '5678',
          previous_card_last4: previous,
        }),
      )!;
    expect(changed('1234')).toMatchObject({
      template: 'subscription.card_changed',
      recipientPlatformUserId: PAYER,
      recipientUserId: PAYER_ID,
      preference: 'payment_notifications',
    });
    expect(changed('1234').content).toContain('**Raid Test** 서버의 Pro 구독 결제 카드가 바뀌었습니다');
    expect(changed('1234').content).toContain(
      '다음 결제부터 국민카드 ****5678(으)로 청구됩니다. (이전 카드: ****1234)',
    );
    expect(changed(null).content).not.toContain('이전 카드');
  });

  it('alerts the owner of an incident, also when its snapshot failed', () => {
    const dm = planDm(
      event('AntiNukeIncidentOpened', {
        incident_id: 'inc-1',
        guild_id: 'guild-1',
        actor_platform_user_id: '111',
        action: 'channel_delete',
        count: 3,
        snapshot_id: null,
        owner_platform_user_id: PAYER,
        guild_name: 'Raid Test',
        auto_action_taken: false,
        occurred_at: '2026-11-22T07:05:00Z',
      }),
    );
    expect(dm).toMatchObject({ template: 'antinuke.incident', recipientPlatformUserId: PAYER });
    expect(dm!.content).toContain('<@111> · 채널 삭제 3회');
    expect(dm!.content).toContain('스냅샷 저장에 실패했습니다');
  });

  it('tells the owner when the guild is locked down and when the lockdown lifts', () => {
    const started = planDm(
      event('LockdownStarted', {
        lockdown_id: 'lock-1',
        guild_id: 'guild-1',
        guild_name: 'Raid Test',
        owner_platform_user_id: PAYER,
        started_by_user: null,
        started_by_platform_user_id: null,
        incident_id: 'inc-1',
        lockdown_until: '2026-11-22T08:05:00Z',
        send_messages_taken: true,
        everyone_permissions_before: '3072',
        occurred_at: '2026-11-22T07:05:00Z',
      }),
    );
    expect(started).toMatchObject({ template: 'antinuke.lockdown_started', recipientPlatformUserId: PAYER });
    expect(started!.content).toContain('AntiNuke 사건 `inc-1`로 자동 잠금되었습니다.');
    expect(started!.content).toContain('메시지 보내기 권한을 잠시 거두었습니다');
    expect(started!.content).toContain('17:05 (KST)에 자동으로 풀립니다.');

    const lifted = planDm(
      event('LockdownLifted', {
        lockdown_id: 'lock-1',
        guild_id: 'guild-1',
        guild_name: 'Raid Test',
        owner_platform_user_id: PAYER,
        lifted_by_user: PAYER_ID,
        lifted_by_platform_user_id: '111',
        reason: 'user',
        send_messages_restored: false,
        occurred_at: '2026-11-22T07:35:00Z',
      }),
    );
    expect(lifted).toMatchObject({ template: 'antinuke.lockdown_lifted', recipientPlatformUserId: PAYER });
    expect(lifted!.content).toContain('<@111> 님이 풀었습니다.');
    expect(lifted!.content).not.toContain('돌려주었습니다');
  });

  describe('a change to AntiNuke by someone else', () => {
    const before = {
      enabled: true,
      exempt_user_ids: [],
      threshold: 3,
      window_seconds: 10,
      auto_action_enabled: true,
    };
    const change = (
      outcome: EventPayloads['AntiNukeSettingsChanged']['outcome'],
      actor = '300000000000000009',
    ): EventPayloads['AntiNukeSettingsChanged'] => ({
      guild_id: 'guild-1',
      guild_name: 'Raid Test',
      owner_platform_user_id: PAYER,
      outcome,
      change_id: 'change-1',
      actor_platform_user_id: actor,
      actor_user_id: null,
      requested_by_platform_user_id: '300000000000000009',
      before,
      after: { ...before, enabled: false, threshold: 10, exempt_user_ids: ['300000000000000009'] },
      loosened: ['enabled', 'exempt_user_ids', 'threshold'],
      applies_at: outcome === 'pending' ? '2026-11-23T07:05:00.000Z' : null,
      replaced_change_id: null,
    });

    it('tells the owner who asked to loosen what, and until when they can refuse', () => {
      const dm = planDm(event('AntiNukeSettingsChanged', change('pending')));
      expect(dm).toMatchObject({
        template: 'antinuke.settings_changed',
        recipientPlatformUserId: PAYER,
        preference: null,
      });
      expect(dm!.content).toContain('<@300000000000000009>님이 AntiNuke 보호를 약하게 바꾸려 합니다');
      expect(dm!.content).toContain('• AntiNuke: 켜짐 → 꺼짐 (보호 약해짐)');
      expect(dm!.content).toContain('• 예외 사용자: 없음 → <@300000000000000009> (보호 약해짐)');
      expect(dm!.content).toContain('• 감지 기준(횟수): 3회 → 10회 (보호 약해짐)');
      expect(dm!.content).not.toContain('감지 시간');
      expect(dm!.content).toContain(`${formatKstDateTime('2026-11-23T07:05:00.000Z')}에 적용됩니다`);
    });

    it('tells the owner of a refused self-exemption and of a change applied after its delay', () => {
      expect(planDm(event('AntiNukeSettingsChanged', change('self_exemption_refused')))!.content).toContain(
        '자신을 AntiNuke 예외 사용자로 넣으려 했으나 거부되었습니다',
      );
      expect(planDm(event('AntiNukeSettingsChanged', change('applied_after_delay')))!.content).toContain(
        '대기 시간이 지나 적용되었습니다',
      );
    });

    it('says nothing to the owner of what they did themself', () => {
      expect(planDm(event('AntiNukeSettingsChanged', change('refused', PAYER)))).toBeNull();
      expect(planDm(event('AntiNukeSettingsChanged', change('applied', PAYER)))).toBeNull();
    });
  });

  it('tells the owner of a snapshot someone else deleted, and until when it can be undone', () => {
    const deleted = (by: string) =>
      planDm(
        event('SnapshotDeleted', {
          snapshot_id: 'snap-1',
          guild_id: 'guild-1',
          guild_name: 'Raid Test',
          owner_platform_user_id: PAYER,
          trigger: 'antinuke',
          snapshot_created_at: '2026-11-20T07:05:00.000Z',
          deleted_by_user: null,
          deleted_by_platform_user_id: by,
          purge_after: '2026-11-29T07:05:00.000Z',
        }),
      );
    expect(deleted('300000000000000009')).toMatchObject({
      template: 'snapshot.deleted',
      recipientPlatformUserId: PAYER,
    });
    expect(deleted('300000000000000009')!.content).toContain(
      '`snap-1`을(를) <@300000000000000009>님이 삭제했습니다',
    );
    expect(deleted('300000000000000009')!.content).toContain(formatKstDateTime('2026-11-29T07:05:00.000Z'));
    expect(deleted(PAYER)).toBeNull();
  });

  it('names a raid of several kinds, and a new kind, in Korean', () => {
    const dm = (action: string) =>
      planDm(
        event('AntiNukeIncidentOpened', {
          incident_id: 'inc-2',
          guild_id: 'guild-1',
          actor_platform_user_id: '111',
          action,
          count: 4,
          snapshot_id: 'snap-1',
          owner_platform_user_id: PAYER,
          guild_name: 'Raid Test',
          auto_action_taken: false,
          occurred_at: '2026-11-22T07:05:00Z',
        }),
      );
    expect(dm('mixed')!.content).toContain('<@111> · 여러 종류의 파괴 행위 4회');
    expect(dm('webhook_create')!.content).toContain('<@111> · 웹훅 생성 4회');
  });

  it('tells the owner the bot was removed, by whom if known, and the last snapshot', () => {
    const removed = (actor: string | null, snapshot: string | null) =>
      planDm(
        event('AntiNukeIncidentOpened', {
          incident_id: 'inc-3',
          guild_id: 'guild-1',
          actor_platform_user_id: actor,
          action: 'bot_removed',
          count: 1,
          snapshot_id: snapshot,
          owner_platform_user_id: PAYER,
          guild_name: 'Raid Test',
          auto_action_taken: false,
          occurred_at: '2026-11-22T07:05:00Z',
        }),
      );
    const unknown = removed(null, '0190a000-0000-7000-8000-00000000000a');
    expect(unknown).toMatchObject({ template: 'antinuke.incident', recipientPlatformUserId: PAYER });
    expect(unknown!.content).toContain('봇이 서버에서 제거되었습니다');
    expect(unknown!.content).toContain('행위자: 알 수 없음');
    expect(unknown!.content).toContain('마지막 스냅샷: `0190a000-0000-7000-8000-00000000000a`');
    expect(removed('222', null)!.content).toContain('행위자: <@222>');
    expect(removed('222', null)!.content).toContain('저장된 스냅샷이 없습니다');
  });

  it('has nothing to say about events no user needs to hear of', () => {
    expect(
      planDm(
        event('SubscriptionUncanceled', {
          subscription_id: 's',
          license_id: null,
          requested_by_user: PAYER_ID,
        }),
      ),
    ).toBeNull();
  });
});

describe('events from producers older than the recipient fields', () => {
  it('plans no DM when the event names no recipient, and names no guild it does not know', () => {
    const old = {
      restore_job_id: 'job-1',
      snapshot_id: 'snap-1',
      requested_by_user: PAYER_ID,
      result_summary: summary,
      duration_ms: 1_000,
      pre_restore_snapshot_id: null,
    } as unknown as EventPayloads['RestoreCompleted'];
    expect(planDm(event('RestoreCompleted', old))).toBeNull();
    const noName = { ...old, requested_by_platform_user_id: PAYER } as EventPayloads['RestoreCompleted'];
    expect(planDm(event('RestoreCompleted', noName))!.content).toContain('✅ 내 서버 복구가 끝났습니다.');
  });
});

describe(testDmContent.name, () => {
  const all = {
    payment_notifications: true,
    restore_notifications: true,
    incident_notifications: true,
    updated_at: null,
  };

  it('names the kinds of DM the user receives now', () => {
    expect(testDmContent(all)).toContain('지금 받는 알림: 결제, 복구, AntiNuke 경보');
    expect(testDmContent({ ...all, restore_notifications: false })).toContain(
      '지금 받는 알림: 결제, AntiNuke 경보',
    );
  });

  it('says so when every kind is off', () => {
    const none = {
      ...all,
      payment_notifications: false,
      restore_notifications: false,
      incident_notifications: false,
    };
    expect(testDmContent(none)).toContain('모두 꺼 두셨습니다');
    expect(testDmContent(none)).not.toContain('지금 받는 알림');
  });
});

describe('a restore someone else started', () => {
  const OWNER = '80351110224678913';
  const started = (requester: string, owner?: string) =>
    event('RestoreStarted', {
      restore_job_id: 'job-1',
      snapshot_id: 'snap-1',
      guild_id: 'guild-1',
      scope: ['roles', 'bans'],
      requested_by_user: PAYER_ID,
      requested_by_platform_user_id: requester,
      ...(owner ? { owner_platform_user_id: owner } : {}),
      guild_name: 'Demo',
    });

  it('is told to the owner, naming who started it and what it restores', () => {
    expect(planDm(started(PAYER, OWNER))).toEqual({
      template: 'restore.started_by_other',
      recipientPlatformUserId: OWNER,
      recipientUserId: null,
      preference: null,
      content: [
        `🛠️ **Demo** 서버에서 <@${PAYER}>님이 복구를 시작했습니다.`,
        '복구 범위: 역할, 차단',
        '스냅샷: `snap-1` · 작업: `job-1`',
        '본인이 요청한 복구가 아니라면 대시보드에서 바로 취소하세요.',
      ].join('\n'),
    });
  });

  it('is not news to an owner who started it, nor sent for an event without the owner', () => {
    expect(planDm(started(OWNER, OWNER))).toBeNull();
    expect(planDm(started(PAYER))).toBeNull();
  });
});
