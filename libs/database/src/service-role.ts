import type { Client } from 'pg';

// sql-placement-exempt: role and schema provisioning (DDL and catalogue reads run by the migration
// job as an administrator), not a service's data access.

/** The Postgres login a service's `DATABASE_URL` names. */
export function loginOf(url: string): { user: string; password: string } {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username);
  if (!user) throw new Error('the service database URL names no user');
  return { user, password: decodeURIComponent(parsed.password) };
}

/**
 * Makes `url`'s user the login of one service, able to use its own schema and nothing else
 * (docs/decisions/database-roles.md: each service connects with its own role). Run by the migration job (and by
 * standalone mode) with an administrator connection that may create roles, before the service's
 * migrations, which then run as the service's own login.
 *
 * The role gets LOGIN and the URL's password (changed when it differs), CONNECT on the database,
 * and ownership of its schema and of everything in it: tables created by an earlier version's
 * migrations under the administrator are handed over. PUBLIC loses every right on the schema, so
 * another service's login is refused at the schema before any table is looked at. Idempotent, and
 * serialised per schema, so several migration jobs may run at once.
 */
export async function provisionServiceRole(admin: Client, schema: string, url: string): Promise<string> {
  const { user, password } = loginOf(url);
  // Without a password the login either cannot sign in (password auth) or needs nothing (trust).
  if (!password) throw new Error(`the database URL of schema ${schema} names no password for ${user}`);
  const role = admin.escapeIdentifier(user);
  const namespace = admin.escapeIdentifier(schema);
  await admin.query('BEGIN');
  try {
    await admin.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`provision:${schema}`]);
    const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [user]);
    const login = `LOGIN PASSWORD ${admin.escapeLiteral(password)}`;
    await admin.query(
      exists.rowCount ? `ALTER ROLE ${role} WITH ${login}` : `CREATE ROLE ${role} WITH ${login}`,
    );
    // To hand objects to the role, an administrator that is not a superuser must be a member of it.
    const { rows } = await admin.query<{ superuser: boolean; member: boolean }>(
      `SELECT rolsuper AS superuser, pg_has_role(current_user, $1, 'MEMBER') AS member
         FROM pg_roles WHERE rolname = current_user`,
      [user],
    );
    if (!rows[0].superuser && !rows[0].member) await admin.query(`GRANT ${role} TO CURRENT_USER`);
    const database = await admin.query<{ name: string }>('SELECT current_database() AS name');
    await admin.query(
      `GRANT CONNECT ON DATABASE ${admin.escapeIdentifier(database.rows[0].name)} TO ${role}`,
    );
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${namespace} AUTHORIZATION ${role}`);
    await admin.query(`ALTER SCHEMA ${namespace} OWNER TO ${role}`);
    for (const statement of await ownershipTransfers(admin, schema, user)) {
      await admin.query(`${statement} OWNER TO ${role}`);
    }
    await admin.query(`REVOKE ALL ON SCHEMA ${namespace} FROM PUBLIC`);
    await admin.query('COMMIT');
  } catch (error) {
    await admin.query('ROLLBACK');
    throw error;
  }
  return user;
}

/**
 * `ALTER ... <object>` for everything in `schema` the role does not own yet: relations (a table
 * takes the sequences its columns own along), then free-standing sequences, functions and types.
 */
async function ownershipTransfers(admin: Client, schema: string, user: string): Promise<string[]> {
  const { rows } = await admin.query<{ statement: string }>(
    `SELECT format('ALTER TABLE %I.%I', n.nspname, c.relname) AS statement
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
        AND pg_get_userbyid(c.relowner) <> $2
     UNION ALL
     SELECT format('ALTER SEQUENCE %I.%I', n.nspname, c.relname)
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'S' AND pg_get_userbyid(c.relowner) <> $2
        AND NOT EXISTS (SELECT 1 FROM pg_depend d
                         WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
     UNION ALL
     SELECT format('ALTER ROUTINE %s', p.oid::regprocedure)
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1 AND pg_get_userbyid(p.proowner) <> $2
     UNION ALL
     SELECT format('ALTER TYPE %I.%I', n.nspname, t.typname)
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = $1 AND t.typtype IN ('e', 'd', 'r', 'm') AND pg_get_userbyid(t.typowner) <> $2`,
    [schema, user],
  );
  return rows.map((row) => row.statement);
}
