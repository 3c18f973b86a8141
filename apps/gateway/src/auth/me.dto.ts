export class MeSessionView {
  id: string;
  created_at: string;
  /** The session ends then, whatever happens (no sliding expiry). */
  expires_at: string;
}

/** Who is logged in. */
export class MeView {
  /** The service's id of the user. */
  id: string;

  /** The platform's id of the user. */
  platform_user_id: string;

  username: string;

  global_name: string | null;

  /** The platform's avatar hash, or null. */
  avatar: string | null;

  created_at: string;

  session: MeSessionView;
}
