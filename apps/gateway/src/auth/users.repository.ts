import { firstRow } from '@lib/database';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { PlatformProfile } from './platform-oauth.client';

export interface UserRow {
  id: string;
  platform_user_id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  created_at: Date;
  last_login_at: Date;
}

@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Creates the user on first login; later logins refresh the profile the platform reports. */
  async upsertOnLogin(profile: PlatformProfile): Promise<UserRow> {
    const [row] = await this.dataSource.query<UserRow[]>(
      `INSERT INTO identity.users (id, platform_user_id, username, global_name, avatar)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (platform_user_id) DO UPDATE
          SET username = EXCLUDED.username, global_name = EXCLUDED.global_name, avatar = EXCLUDED.avatar,
              last_login_at = now()
       RETURNING *`,
      [uuidv7(), profile.id, profile.username, profile.global_name, profile.avatar],
    );
    return row;
  }

  get(id: string): Promise<UserRow | null> {
    return firstRow<UserRow>(this.dataSource, `SELECT * FROM identity.users WHERE id = $1`, [id]);
  }
}
