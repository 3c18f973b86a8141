import { PERMISSION } from '@lib/chat-platform';

/**
 * @everyone's permissions while the guild is locked down: the same without SEND_MESSAGES. Null
 * when it lacks SEND_MESSAGES already (nothing to take, nothing to give back).
 */
export function lockedPermissions(before: string): string | null {
  const bits = BigInt(before);
  if ((bits & PERMISSION.SEND_MESSAGES) === 0n) return null;
  return (bits & ~PERMISSION.SEND_MESSAGES).toString();
}

/**
 * @everyone's permissions once the lockdown lifts: exactly what they were before when nobody
 * changed them meanwhile; otherwise the changes made meanwhile are kept and only SEND_MESSAGES,
 * which the lockdown took, comes back. Null when there is nothing to write.
 */
export function liftedPermissions(lockdown: {
  before: string;
  set: string | null;
  current: string;
}): string | null {
  if (lockdown.set === null) return null;
  const next =
    BigInt(lockdown.current) === BigInt(lockdown.set)
      ? BigInt(lockdown.before)
      : BigInt(lockdown.current) | PERMISSION.SEND_MESSAGES;
  return next === BigInt(lockdown.current) ? null : next.toString();
}
