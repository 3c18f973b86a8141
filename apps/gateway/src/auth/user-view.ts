import type { MeView } from './me.dto';
import type { UserRow } from './users.repository';

/** A user as the API shows them: `GET /me` without its session, and the login's answer. */
export type UserView = Omit<MeView, 'session'>;

export function toUserView(user: UserRow): UserView {
  return {
    id: user.id,
    platform_user_id: user.platform_user_id,
    username: user.username,
    global_name: user.global_name,
    avatar: user.avatar,
    created_at: user.created_at.toISOString(),
  };
}
