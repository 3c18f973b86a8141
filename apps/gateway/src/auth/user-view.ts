import type { UserRow } from './users.repository';

export interface UserView {
  id: string;
  platform_user_id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  created_at: string;
}

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
