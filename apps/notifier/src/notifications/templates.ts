import type {
  AntiNukeSettingsFacts,
  DomainEvent,
  EventPayloads,
  PlanCode,
  RestoreResultSummary,
} from '@lib/contracts';
import type { NotificationPreferences, PreferenceKey } from '../preferences/preferences.repository';

/**
 * Every DM the service sends, in one place (docs/behaviour.md §1.5, §6). Users are Korean: messages are in
 * Korean, amounts in won (`9,900원`), dates and times in Korea Standard Time.
 */
export const TEMPLATES = [
  'restore.completed',
  'restore.failed',
  'restore.guild_deleted',
  'snapshot.created',
  'subscription.started',
  'plan.upgraded',
  'subscription.cancel_scheduled',
  'subscription.ended',
  'subscription.card_changed',
  'antinuke.incident',
  'antinuke.lockdown_started',
  'antinuke.lockdown_lifted',
  'antinuke.settings_changed',
  'snapshot.deleted',
  'restore.started_by_other',
] as const;
export type Template = (typeof TEMPLATES)[number];

export type { PreferenceKey };

export interface PlannedDm {
  template: Template;
  recipientPlatformUserId: string;
  /** The service's own user id where the event knows it (preferences are kept per user). */
  recipientUserId: string | null;
  /** The preference the DM honours; null when it is always sent. */
  preference: PreferenceKey | null;
  content: string;
}

const PLAN_NAMES: Record<PlanCode, string> = { FREE: 'Free', PRO: 'Pro', ENTERPRISE: 'Enterprise' };

/** The destructive actions AntiNuke counts; anything else is shown as the platform named it. */
const ACTION_NAMES: Record<string, string> = {
  channel_delete: '채널 삭제',
  role_delete: '역할 삭제',
  member_ban: '멤버 차단',
  member_kick: '멤버 추방',
  member_prune: '멤버 정리(prune)',
  permission_grant: '역할에 위험 권한 부여',
  dangerous_role_grant: '멤버에게 위험 역할 부여',
  member_role_remove: '멤버 역할 회수',
  channel_overwrite: '채널 권한 변경',
  webhook_create: '웹훅 생성',
  bot_add: '봇 추가',
  vanity_url_change: '초대 링크(vanity URL) 변경',
  emoji_delete: '이모지 삭제',
  sticker_delete: '스티커 삭제',
  mixed: '여러 종류의 파괴 행위',
};

/** Incidents about the bot itself: it was removed, or can no longer read the audit log. */
const BOT_LOST: Record<string, string> = {
  bot_removed: '봇이 서버에서 제거되었습니다',
  bot_audit_log_lost: '봇이 감사 로그를 볼 권한(VIEW_AUDIT_LOG)을 잃었습니다',
};

/**
 * The bot lost the guild: who did it when known, and the last snapshot, from which the owner can
 * restore once the bot is back.
 */
function botLostContent(p: EventPayloads['AntiNukeIncidentOpened']): string {
  return [
    `🚨 ${guild(p.guild_name)} 서버에서 ${BOT_LOST[p.action]}. (${formatKstDateTime(p.occurred_at)})`,
    p.actor_platform_user_id
      ? `행위자: <@${p.actor_platform_user_id}>`
      : '행위자: 알 수 없음 (봇이 감사 로그를 더 이상 읽을 수 없습니다)',
    'AntiNuke가 더 이상 이 서버를 지킬 수 없습니다. 본인이 한 일이 아니라면 관리자 계정을 점검하세요.',
    p.snapshot_id
      ? `마지막 스냅샷: \`${p.snapshot_id}\` — 봇을 다시 초대한 뒤 이 스냅샷으로 복구할 수 있습니다.`
      : '저장된 스냅샷이 없습니다.',
  ].join('\n');
}

const won = new Intl.NumberFormat('ko-KR');
const kstDateTime = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const kstDate = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
});

/** `9,900원` */
export function formatKrw(amount: number): string {
  return `${won.format(amount)}원`;
}

/** `2026년 11월 22일 16:05 (KST)` */
export function formatKstDateTime(iso: string): string {
  return `${kstDateTime.format(new Date(iso))} (KST)`;
}

/** `2026년 12월 22일` */
export function formatKstDate(iso: string): string {
  return kstDate.format(new Date(iso));
}

/** `1분 5초`, `2시간 3분`, `0.4초` */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${(Math.max(ms, 0) / 1_000).toFixed(1)}초`;
  const totalSeconds = Math.round(ms / 1_000);
  const hours = Math.floor(totalSeconds / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return minutes > 0 ? `${hours}시간 ${minutes}분` : `${hours}시간`;
  if (minutes > 0) return seconds > 0 ? `${minutes}분 ${seconds}초` : `${minutes}분`;
  return `${seconds}초`;
}

/** `신한카드 ****1234`, or `카드 ****1234` when the provider named no company. */
function cardName(company: string, last4: string): string {
  return `${company}카드 ****${last4}`;
}

/** What each restore scope is called in a DM. */
const SCOPE_NAMES: Record<string, string> = {
  roles: '역할',
  channels: '채널',
  permission_overrides: '권한 설정',
  guild_settings: '서버 설정',
  member_roles: '멤버 역할',
  bans: '차단',
};

/** `1.2 KB` */
function formatBytes(bytes: number): string {
  if (bytes < 1_024) return `${bytes} B`;
  if (bytes < 1_024 * 1_024) return `${(bytes / 1_024).toFixed(1)} KB`;
  return `${(bytes / (1_024 * 1_024)).toFixed(1)} MB`;
}

/**
 * The guild's name in bold. Events written before a producer carried the name (an older release,
 * still in Kafka) have none; the message then reads "your server" rather than "undefined".
 */
function guild(name: string | undefined): string {
  return name ? `**${name}**` : '내';
}

function summaryLines(summary: RestoreResultSummary): string[] {
  const lines = [
    `• 역할: 생성 ${summary.roles_created} · 수정 ${summary.roles_updated} · 삭제 ${summary.roles_deleted}`,
    `• 채널: 생성 ${summary.channels_created} · 수정 ${summary.channels_updated} · 삭제 ${summary.channels_deleted}`,
    `• 권한 설정: 적용 ${summary.overrides_applied} · 제거 ${summary.overrides_removed}`,
    `• 서버 설정: 변경 ${summary.guild_settings_updated}`,
  ];
  // Members' roles and bans were restored only when asked for: their counts are there only then.
  if (summary.members_updated !== undefined) {
    lines.push(
      `• 멤버 역할: ${summary.members_updated}명에게 역할 ${summary.member_roles_restored ?? 0}개 복구` +
        (summary.members_absent ? ` · 서버를 떠난 ${summary.members_absent}명은 제외` : ''),
    );
  }
  if (summary.bans_lifted !== undefined) lines.push(`• 차단 해제: ${summary.bans_lifted}`);
  if (summary.emojis_created !== undefined) {
    lines.push(
      `• 이모지: 생성 ${summary.emojis_created} · 수정 ${summary.emojis_updated ?? 0} · 삭제 ${summary.emojis_deleted ?? 0}`,
    );
  }
  if (summary.stickers_created !== undefined) {
    lines.push(
      `• 스티커: 생성 ${summary.stickers_created} · 수정 ${summary.stickers_updated ?? 0} · 삭제 ${summary.stickers_deleted ?? 0}`,
    );
  }
  if (summary.guild_images_updated !== undefined)
    lines.push(`• 서버 이미지: 복구 ${summary.guild_images_updated}`);
  if (summary.automod_rules_created !== undefined) {
    lines.push(
      `• 자동 검열 규칙: 생성 ${summary.automod_rules_created} · 수정 ${summary.automod_rules_updated ?? 0} · 삭제 ${summary.automod_rules_deleted ?? 0}`,
    );
  }
  if (summary.onboarding_prompts_created !== undefined) {
    // 수정: the questions set back, and the onboarding's settings and the welcome screen put back.
    lines.push(
      `• 환영 화면·온보딩: 질문 생성 ${summary.onboarding_prompts_created} · 수정 ${summary.onboarding_updated ?? 0} · 질문 삭제 ${summary.onboarding_prompts_deleted ?? 0}`,
    );
  }
  if (summary.webhooks_created !== undefined) {
    lines.push(
      `• 웹후크: 생성 ${summary.webhooks_created} · 수정 ${summary.webhooks_updated ?? 0} · 삭제 ${summary.webhooks_deleted ?? 0}`,
    );
    // The addresses themselves never go in a DM: whoever holds one can post in its channel.
    if (summary.webhooks_created > 0) {
      lines.push(
        `  새 주소를 받은 웹후크 ${summary.webhooks_created}개: 복구 작업 페이지에 새 주소가 있습니다 (서버 소유자만 볼 수 있음).`,
      );
    }
  }
  if (summary.skipped > 0) lines.push(`• 건너뜀: ${summary.skipped} (봇 권한 밖의 항목)`);
  return lines;
}

/**
 * Where the pre-restore state is; that it could not be saved only when a snapshot was asked for
 * (docs/behaviour.md §7.3: the user is warned). Without one asked for, there is nothing to say. Events from
 * before `pre_restore_snapshot_requested` was recorded do not say, so neither does the DM.
 */
function preRestoreLines(p: {
  pre_restore_snapshot_id: string | null;
  pre_restore_snapshot_requested?: boolean;
}): string[] {
  if (p.pre_restore_snapshot_id) {
    return [
      `복구 직전 상태는 스냅샷 \`${p.pre_restore_snapshot_id}\`에 저장해 두었습니다. 되돌리려면 이 스냅샷으로 복구하세요.`,
    ];
  }
  return p.pre_restore_snapshot_requested === true ? ['복구 직전 상태의 스냅샷은 만들지 못했습니다.'] : [];
}

const AUTO_ACTION_MODE_NAMES: Record<string, string> = { quarantine: '격리', kick: '추방', ban: '차단' };

/** AntiNuke's setting fields, as the owner reads them. */
const SETTING_NAMES: Record<keyof AntiNukeSettingsFacts, string> = {
  enabled: 'AntiNuke',
  exempt_user_ids: '예외 사용자',
  threshold: '감지 기준(횟수)',
  window_seconds: '감지 시간',
  auto_action_enabled: '자동 조치',
  auto_action_mode: '자동 조치 방식',
  auto_lockdown_enabled: '사건 시 자동 잠금',
};

function settingValue(field: keyof AntiNukeSettingsFacts, settings: AntiNukeSettingsFacts): string {
  const value = settings[field];
  if (typeof value === 'boolean') return value ? '켜짐' : '꺼짐';
  if (value === undefined) return '-';
  if (field === 'auto_action_mode') return AUTO_ACTION_MODE_NAMES[value as string] ?? String(value);
  if (Array.isArray(value)) return value.length > 0 ? value.map((id) => `<@${id}>`).join(', ') : '없음';
  return field === 'window_seconds' ? `${value}초` : `${value}회`;
}

/** `• 감지 기준(횟수): 3회 → 10회 (약해짐)`, one line per field that differs. */
function settingLines(p: {
  before: AntiNukeSettingsFacts;
  after: AntiNukeSettingsFacts;
  loosened: string[];
}): string[] {
  return (Object.keys(SETTING_NAMES) as (keyof AntiNukeSettingsFacts)[])
    .filter((field) => settingValue(field, p.before) !== settingValue(field, p.after))
    .map(
      (field) =>
        `• ${SETTING_NAMES[field]}: ${settingValue(field, p.before)} → ${settingValue(field, p.after)}` +
        (p.loosened.includes(field) ? ' (보호 약해짐)' : ''),
    );
}

/** What the owner is told of a change someone else made to AntiNuke; nothing of their own. */
function planAntiNukeSettingsChanged(p: EventPayloads['AntiNukeSettingsChanged']): PlannedDm | null {
  if (p.actor_platform_user_id === p.owner_platform_user_id) return null;
  const actor = `<@${p.actor_platform_user_id}>`;
  const head: Partial<Record<EventPayloads['AntiNukeSettingsChanged']['outcome'], string[]>> = {
    pending: [
      `⚠️ ${guild(p.guild_name)} 서버에서 ${actor}님이 AntiNuke 보호를 약하게 바꾸려 합니다.`,
      ...settingLines(p),
      `${p.applies_at ? formatKstDateTime(p.applies_at) : '대기 시간이 지난 뒤'}에 적용됩니다. 원하지 않으면 그 전에 대시보드에서 거절하세요.`,
      ...(p.replaced_change_id ? ['이전에 대기 중이던 변경은 이 변경으로 대체되었습니다.'] : []),
    ],
    applied: [
      `🛡️ ${guild(p.guild_name)} 서버의 AntiNuke 설정을 ${actor}님이 바꿨습니다.`,
      ...settingLines(p),
    ],
    applied_after_delay: [
      `🛡️ ${guild(p.guild_name)} 서버에서 ${actor}님이 요청한 AntiNuke 변경이 대기 시간이 지나 적용되었습니다.`,
      ...settingLines(p),
    ],
    self_exemption_refused: [
      `⛔ ${guild(p.guild_name)} 서버에서 ${actor}님이 자신을 AntiNuke 예외 사용자로 넣으려 했으나 거부되었습니다.`,
      '계정이 탈취되었을 수 있습니다. 대시보드에서 설정과 관리자 권한을 확인하세요.',
    ],
  };
  const lines = head[p.outcome];
  if (!lines) return null;
  return {
    template: 'antinuke.settings_changed',
    recipientPlatformUserId: p.owner_platform_user_id,
    recipientUserId: null,
    // The owner's guard against a hijacked manager: never switched off by a preference.
    preference: null,
    content: lines.join('\n'),
  };
}

type Planner<T extends keyof EventPayloads> = (payload: EventPayloads[T]) => PlannedDm | null;

/** A guild deleted during the run is news to the restorer; a user's own cancel is not: they were there. */
function planRestoreCanceled(
  p: Pick<
    EventPayloads['RestoreCanceled'],
    'requested_by_platform_user_id' | 'requested_by_user' | 'guild_name' | 'snapshot_id' | 'reason'
  >,
): PlannedDm | null {
  if (p.requested_by_platform_user_id === null || p.reason !== 'guild_deleted') return null;
  return {
    template: 'restore.guild_deleted',
    recipientPlatformUserId: p.requested_by_platform_user_id,
    recipientUserId: p.requested_by_user,
    preference: 'restore_notifications',
    content: [
      `⚠️ ${guild(p.guild_name)} 서버가 복구 도중 삭제되어 복구를 중단했습니다.`,
      `스냅샷 \`${p.snapshot_id}\`은(는) 그대로 보관됩니다.`,
    ].join('\n'),
  };
}

const PLANNERS: { [T in keyof EventPayloads]?: Planner<T> } = {
  // The owner hears of every restore someone else starts: a restore rewrites their guild. Not
  // something they can switch off; their own restores they started themselves.
  RestoreStarted: (p) =>
    !p.owner_platform_user_id || p.owner_platform_user_id === p.requested_by_platform_user_id
      ? null
      : {
          template: 'restore.started_by_other',
          recipientPlatformUserId: p.owner_platform_user_id,
          recipientUserId: null,
          preference: null,
          content: [
            `🛠️ ${guild(p.guild_name)} 서버에서 <@${p.requested_by_platform_user_id ?? p.requested_by_user}>님이 복구를 시작했습니다.`,
            `복구 범위: ${p.scope.map((scope) => SCOPE_NAMES[scope] ?? scope).join(', ')}`,
            `스냅샷: \`${p.snapshot_id}\` · 작업: \`${p.restore_job_id}\``,
            '본인이 요청한 복구가 아니라면 대시보드에서 바로 취소하세요.',
          ].join('\n'),
        },

  RestoreCompleted: (p) =>
    p.requested_by_platform_user_id === null
      ? null
      : {
          template: 'restore.completed',
          recipientPlatformUserId: p.requested_by_platform_user_id,
          recipientUserId: p.requested_by_user,
          preference: 'restore_notifications',
          content: [
            `✅ ${guild(p.guild_name)} 서버 복구가 끝났습니다. (소요 시간 ${formatDuration(p.duration_ms)})`,
            ...summaryLines(p.result_summary),
            ...preRestoreLines(p),
          ].join('\n'),
        },

  RestoreFailed: (p) => {
    if (p.requested_by_platform_user_id === null) return null;
    // Until RestoreCanceled existed, a cancel was a RestoreFailed with status `canceled` (older
    // producers' events may still be in Kafka).
    const legacy = p as { status: string; error_code: string };
    if (legacy.status === 'canceled') {
      return planRestoreCanceled({
        ...p,
        reason: legacy.error_code === 'guild_deleted' ? 'guild_deleted' : 'user',
      });
    }
    return {
      template: 'restore.failed',
      recipientPlatformUserId: p.requested_by_platform_user_id,
      recipientUserId: p.requested_by_user,
      preference: 'restore_notifications',
      content: [
        `❌ ${guild(p.guild_name)} 서버 복구에 실패했습니다.`,
        `사유: ${p.error_message}`,
        '이미 적용된 변경은 되돌리지 않았습니다.',
        ...preRestoreLines(p),
      ].join('\n'),
    };
  },

  RestoreCanceled: (p) => planRestoreCanceled(p),

  SnapshotCreated: (p) =>
    p.trigger !== 'manual' || p.created_by_platform_user_id === null
      ? null
      : {
          template: 'snapshot.created',
          recipientPlatformUserId: p.created_by_platform_user_id,
          recipientUserId: p.created_by_user,
          preference: null,
          content: `📸 ${guild(p.guild_name)} 서버의 스냅샷을 만들었습니다. (ID \`${p.snapshot_id}\`, ${formatBytes(p.size)})`,
        },

  SubscriptionStarted: (p) =>
    p.payer_platform_user_id === null
      ? null
      : {
          template: 'subscription.started',
          recipientPlatformUserId: p.payer_platform_user_id,
          recipientUserId: p.payer_user_id,
          preference: 'payment_notifications',
          content: [
            `💳 ${guild(p.guild_name)} 서버의 ${PLAN_NAMES[p.plan_code]} 구독이 시작되었습니다.`,
            `결제 금액: ${formatKrw(p.amount_krw)}`,
            `이용 기간: ${formatKstDate(p.current_period_start)} ~ ${formatKstDate(p.current_period_end)}`,
            `다음 결제 예정: ${formatKstDateTime(p.next_billing_at)}`,
          ].join('\n'),
        },

  PlanUpgraded: (p) =>
    p.payer_platform_user_id === null
      ? null
      : {
          template: 'plan.upgraded',
          recipientPlatformUserId: p.payer_platform_user_id,
          recipientUserId: p.payer_user_id,
          preference: null,
          content: [
            `⬆️ ${guild(p.guild_name)} 서버의 플랜이 ${PLAN_NAMES[p.old_plan_code]}에서 ${PLAN_NAMES[p.new_plan_code]}(으)로 바뀌었습니다.`,
            `지금부터 적용되며, 새 요금은 ${formatKstDate(p.current_period_end)} 결제부터 청구됩니다.`,
          ].join('\n'),
        },

  SubscriptionCanceled: (p) =>
    p.payer_platform_user_id === null
      ? null
      : {
          template: 'subscription.cancel_scheduled',
          recipientPlatformUserId: p.payer_platform_user_id,
          recipientUserId: p.requested_by_user,
          preference: null,
          content: [
            `🗓️ ${guild(p.guild_name)} 서버의 ${PLAN_NAMES[p.plan_code]} 구독 해지가 예약되었습니다.`,
            `${formatKstDateTime(p.effective_at)}까지 지금처럼 이용할 수 있고, 이후에는 결제되지 않습니다.`,
            '마음이 바뀌면 그 전에 대시보드에서 해지를 취소할 수 있습니다.',
          ].join('\n'),
        },

  SubscriptionCanceledPeriodEnd: (p) =>
    p.payer_platform_user_id === null
      ? null
      : {
          template: 'subscription.ended',
          recipientPlatformUserId: p.payer_platform_user_id,
          recipientUserId: p.payer_user_id,
          preference: null,
          content: [
            p.reason === 'payment_failed'
              ? `⚠️ 결제가 계속 실패하여 ${guild(p.guild_name)} 서버의 ${PLAN_NAMES[p.plan_code]} 구독이 종료되었습니다.`
              : `👋 ${guild(p.guild_name)} 서버의 ${PLAN_NAMES[p.plan_code]} 구독이 예약하신 대로 종료되었습니다.`,
            '이제 Free 플랜이 적용됩니다. 저장된 스냅샷은 그대로 남아 있으며, 언제든 다시 구독할 수 있습니다.',
          ].join('\n'),
        },

  SubscriptionCardChanged: (p) =>
    p.payer_platform_user_id === null
      ? null
      : {
          template: 'subscription.card_changed',
          recipientPlatformUserId: p.payer_platform_user_id,
          recipientUserId: p.payer_user_id,
          preference: 'payment_notifications',
          content: [
            `💳 ${guild(p.guild_name)} 서버의 ${PLAN_NAMES[p.plan_code]} 구독 결제 카드가 바뀌었습니다.`,
            `다음 결제부터 ${cardName(p.card_company, p.card_last4)}(으)로 청구됩니다.` +
              (p.previous_card_last4 ? ` (이전 카드: ****${p.previous_card_last4})` : ''),
            '새로 등록한 카드는 결제하시는 모든 구독에 함께 쓰입니다.',
          ].join('\n'),
        },

  AntiNukeIncidentOpened: (p) => ({
    template: 'antinuke.incident',
    recipientPlatformUserId: p.owner_platform_user_id,
    recipientUserId: null,
    preference: 'incident_notifications',
    content: BOT_LOST[p.action]
      ? botLostContent(p)
      : [
          `🚨 ${guild(p.guild_name)} 서버에서 대량 파괴 행위가 감지되었습니다. (${formatKstDateTime(p.occurred_at)})`,
          `행위자: <@${p.actor_platform_user_id}> · ${ACTION_NAMES[p.action] ?? p.action} ${p.count}회`,
          p.snapshot_id
            ? `감지 직후 상태를 스냅샷 \`${p.snapshot_id}\`에 저장했습니다.`
            : '스냅샷 저장에 실패했습니다. 운영팀에 알렸습니다; 가장 최근 스냅샷으로 복구할 수 있습니다.',
          p.auto_action_taken
            ? '자동 조치로 행위자의 위험 권한 역할을 회수했습니다.'
            : '자동 조치는 꺼져 있습니다.',
        ].join('\n'),
  }),

  // The owner hears of every lockdown, whoever started it: it silences their whole guild.
  LockdownStarted: (p) => ({
    template: 'antinuke.lockdown_started',
    recipientPlatformUserId: p.owner_platform_user_id,
    recipientUserId: null,
    preference: 'incident_notifications',
    content: [
      `🔒 ${guild(p.guild_name)} 서버가 잠겼습니다. (${formatKstDateTime(p.occurred_at)})`,
      p.incident_id
        ? `AntiNuke 사건 \`${p.incident_id}\`로 자동 잠금되었습니다.`
        : `<@${p.started_by_platform_user_id ?? '알 수 없음'}> 님이 잠갔습니다.`,
      '초대와 DM이 멈추었습니다.' +
        (p.send_messages_taken ? ' @everyone의 메시지 보내기 권한을 잠시 거두었습니다.' : ''),
      `${formatKstDateTime(p.lockdown_until)}에 자동으로 풀립니다.`,
    ].join('\n'),
  }),

  LockdownLifted: (p) => ({
    template: 'antinuke.lockdown_lifted',
    recipientPlatformUserId: p.owner_platform_user_id,
    recipientUserId: null,
    preference: 'incident_notifications',
    content: [
      `🔓 ${guild(p.guild_name)} 서버의 잠금이 풀렸습니다. (${formatKstDateTime(p.occurred_at)})`,
      p.reason === 'expired'
        ? '정해진 시간이 지나 자동으로 풀렸습니다.'
        : `<@${p.lifted_by_platform_user_id ?? '알 수 없음'}> 님이 풀었습니다.`,
      p.send_messages_restored
        ? '초대와 DM이 다시 열렸고, @everyone의 메시지 보내기 권한을 돌려주었습니다.'
        : '초대와 DM이 다시 열렸습니다.',
    ].join('\n'),
  }),

  AntiNukeSettingsChanged: planAntiNukeSettingsChanged,

  SnapshotDeleted: (p) =>
    p.deleted_by_platform_user_id === p.owner_platform_user_id
      ? null
      : {
          template: 'snapshot.deleted',
          recipientPlatformUserId: p.owner_platform_user_id,
          recipientUserId: null,
          preference: null,
          content: [
            `🗑️ ${guild(p.guild_name)} 서버의 스냅샷 \`${p.snapshot_id}\`을(를) <@${p.deleted_by_platform_user_id}>님이 삭제했습니다.`,
            `${formatKstDateTime(p.purge_after)}까지 대시보드에서 삭제를 취소할 수 있고, 그 뒤에는 완전히 지워집니다.`,
          ].join('\n'),
        },
};

const KIND_NAMES: Record<PreferenceKey, string> = {
  payment_notifications: '결제',
  restore_notifications: '복구',
  incident_notifications: 'AntiNuke 경보',
};

/** The DM a user asks for to see that DMs reach them, with the kinds they now receive. */
export function testDmContent(preferences: NotificationPreferences): string {
  const on = (Object.keys(KIND_NAMES) as PreferenceKey[]).filter((key) => preferences[key]);
  return [
    '🔔 guildkeeper 테스트 메시지입니다. 이 DM이 보인다면 알림을 받을 수 있습니다.',
    on.length > 0
      ? `지금 받는 알림: ${on.map((key) => KIND_NAMES[key]).join(', ')}`
      : '지금은 결제·복구·AntiNuke 경보 알림을 모두 꺼 두셨습니다.',
  ].join('\n');
}

/** The event types that can call for a DM (the consumer subscribes to exactly these). */
export const NOTIFYING_EVENT_TYPES = Object.keys(PLANNERS) as (keyof EventPayloads)[];

/** The DM an event calls for, or null (a scheduled snapshot, a user's own cancel, no recipient). */
export function planDm(event: DomainEvent): PlannedDm | null {
  const planner = PLANNERS[event.type] as Planner<typeof event.type> | undefined;
  const dm = planner ? planner(event.payload) : null;
  // An event from a producer older than its recipient field has no one to send to: no DM, rather
  // than an error that would hold up its partition for good.
  return dm && SNOWFLAKE.test(String(dm.recipientPlatformUserId)) ? dm : null;
}

const SNOWFLAKE = /^\d{1,20}$/;
