import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { readFile } from 'node:fs/promises';
import { api, capture, control, logIn, sandbox, stack, subscribePlan } from './support/dashboard';
import type { SandboxState } from './support/stack-info';

/**
 * The dashboard's first scenarios, in order, as a guild owner and a member would go through them, against the
 * stack BROWSER_STACK names: log in, pick the demo guild, register it, snapshot, the raid, the
 * preview of what the raid removed, the restore to completion, the guild equal to the snapshot,
 * nothing left to restore; then a guild changed between preview and restore, a cancelled restore,
 * a member without MANAGE_GUILD, an expired session. Every page is captured at phone and laptop
 * widths and checked with axe-core.
 */
test.describe.configure({ mode: 'serial' });

let state: SandboxState;
let context: BrowserContext;
let page: Page;
let guildId = '';
let snapshotId = '';
const GUILD_PATH = () => `${stack().url}/guilds/${guildId}`;

test.beforeAll(async ({ browser }) => {
  state = await sandbox();
  // An admin's webhook in #general, made before the guild is registered (so before anything
  // watches it): the snapshot keeps it, and the raider deletes it.
  const channels = await asRaider<{ id: string; name: string }[]>(
    'GET',
    `/guilds/${state.demo.guildId}/channels`,
  );
  const general = channels.find((channel) => channel.name === 'general')!;
  deploysHook = (
    await asRaider<{ id: string }>('POST', `/channels/${general.id}/webhooks`, { name: 'Deploys' })
  ).id;
  context = await browser.newContext();
  page = await context.newPage();
  // No inline script may run: the gateway's CSP would refuse it, and say so on the console.
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) throw new Error(`CSP: ${message.text()}`);
  });
});

test.afterAll(async () => {
  await context.close();
});

let deploysHook = '';

/** A call to the platform's API with alice's token (an admin whose account the raider takes). */
async function asRaider<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${state.platformUrl}/api/v10${path}`, {
    method,
    headers: { authorization: `Bot ${state.demo.raiderToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** The restore page's preview for the chosen snapshot, all parts. */
async function preview(): Promise<void> {
  await page.getByRole('button', { name: 'Preview the restore' }).click();
  await expect(page.getByTestId('restore-preview')).toBeVisible();
}

/** The guild's roles and channels by name, comparable with a snapshot's whatever the ids. */
function shape(guild: {
  roles: { id: string; name: string; color: number; permissions: string; hoist: boolean }[];
  channels: { id: string; name: string; type: number; parent_id: string | null; topic: string | null }[];
  overwrites: { channel_id: string; id: string; type: string; allow: string; deny: string }[];
}) {
  const roleName = new Map(guild.roles.map((role) => [role.id, role.name]));
  const channelName = new Map(guild.channels.map((channel) => [channel.id, channel.name]));
  return {
    roles: guild.roles.map((role) => `${role.name}|${role.color}|${role.permissions}|${role.hoist}`).sort(),
    channels: guild.channels
      .map(
        (channel) =>
          `${channel.name}|${channel.type}|${channelName.get(channel.parent_id ?? '') ?? ''}|${channel.topic ?? ''}`,
      )
      .sort(),
    overwrites: guild.overwrites
      .map(
        (o) =>
          `${channelName.get(o.channel_id)}|${o.type === 'role' ? roleName.get(o.id) : o.id}|${o.allow}|${o.deny}`,
      )
      .sort(),
  };
}

test('an owner logs in with one click and finds their guilds', async () => {
  await page.goto(`${stack().url}/`);
  // No session yet: the picker sends the browser to the login page.
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Log in' })).toBeVisible();
  await capture(page, 'login');

  await logIn(page, state.demo.ownerId);
  await expect(page).toHaveURL(`${stack().url}/`);
  await expect(page.getByRole('heading', { level: 1, name: 'Your guilds' })).toBeVisible();
  const demo = page.getByRole('listitem').filter({ hasText: state.demo.name });
  await expect(demo.getByText('Bot present, not registered')).toBeVisible();
  if (state.botlessGuild) {
    const botless = page.getByRole('listitem').filter({ hasText: state.botlessGuild.name });
    await expect(botless.getByText('Bot missing')).toBeVisible();
    const invite = new URL((await botless.getByRole('link', { name: /Add the bot/ }).getAttribute('href'))!);
    expect(invite.searchParams.get('guild_id')).toBe(state.botlessGuild.guildId);
    // ADMINISTRATOR: a restore must recreate roles and overwrites carrying any permission.
    expect(BigInt(invite.searchParams.get('permissions')!)).toBe(PermissionFlagsBits.Administrator);
  }
  await capture(page, 'guild-picker');
});

test('registers the demo guild, subscribes, and takes a snapshot', async () => {
  await page.getByRole('button', { name: `Register ${state.demo.name}` }).click();
  await expect(page).toHaveURL(/\/guilds\/[0-9a-f-]{36}$/);
  guildId = new URL(page.url()).pathname.split('/')[2];
  await expect(page.getByRole('heading', { level: 1, name: `Overview · ${state.demo.name}` })).toBeVisible();

  // Billing's pages have their own suite (billing.browser.ts): here the subscription is made directly.
  await subscribePlan(page, guildId, 'ENTERPRISE');
  await page.reload();
  await expect(page.getByRole('definition').first()).toContainText('Enterprise');
  await capture(page, 'guild-overview');

  await page.getByRole('navigation', { name: 'Guild' }).getByRole('link', { name: 'Snapshots' }).click();
  await page.getByLabel('Description (optional)').fill('before the raid');
  await page.getByRole('button', { name: 'Take snapshot' }).click();
  await expect(page.getByText(/Snapshot taken/)).toBeVisible();
  await expect(page.getByRole('cell', { name: 'before the raid' })).toBeVisible();
  await capture(page, 'snapshots');

  await page.getByRole('link', { name: 'Open it' }).click();
  snapshotId = new URL(page.url()).pathname.split('/')[4];
  await expect(page.getByText('Moderator', { exact: true })).toBeVisible();
  // Overwrites read as sentences.
  await expect(page.getByText('@Moderator: allow View Channel; deny Send Messages')).toBeVisible();
  await capture(page, 'snapshot-tree');
  // "Download a copy": the snapshot and its images as one file, named for the snapshot.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download a copy' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`guildkeeper-snapshot-${snapshotId}.json`);
  const file = JSON.parse(await readFile(await download.path(), 'utf8')) as { format: string };
  expect(file.format).toBe('guildkeeper.snapshot-export');
});

test('after the raid, the preview shows what it removed, and the restore puts it back', async () => {
  // AntiNuke watches the guild (ENTERPRISE) before the raid comes.
  await expect
    .poll(
      async () =>
        (await api<{ workflow_running: boolean | null }>(page, 'GET', `/api/v1/guilds/${guildId}/antinuke`))
          .workflow_running,
      {
        timeout: 30_000,
      },
    )
    .toBe(true);
  await control('/raid');
  await asRaider('DELETE', `/webhooks/${deploysHook}`);

  await page.getByRole('link', { name: 'Restore from this snapshot' }).click();
  await expect(page.getByLabel('Snapshot')).toHaveValue(snapshotId);
  // The members who held the deleted roles get them back too, and the webhook comes back.
  await page.getByRole('checkbox', { name: 'Members’ roles', exact: true }).check();
  await page.getByRole('checkbox', { name: 'Webhooks', exact: true }).check();
  await preview();
  const diff = page.getByTestId('restore-preview');
  await expect(diff.getByRole('heading', { name: 'Members’ roles' })).toBeVisible();
  await expect(
    diff.getByRole('listitem').filter({ hasText: 'Give back' }).filter({ hasText: 'Moderator' }),
  ).toBeVisible();
  for (const created of ['Moderator', 'Helper']) {
    await expect(
      diff.getByRole('listitem').filter({ hasText: created }).filter({ hasText: 'Create' }),
    ).toBeVisible();
  }
  for (const channel of ['#rules', '#staff-chat', '#announcements']) {
    await expect(diff.getByRole('listitem').filter({ hasText: `Create ${channel}` })).toBeVisible();
  }
  await expect(diff.getByRole('listitem').filter({ hasText: 'Update #general' })).toContainText('raided');
  await expect(diff.getByRole('listitem').filter({ hasText: 'Delete #spam' })).toBeVisible();
  await capture(page, 'restore-preview');

  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page).toHaveURL(/\/restore\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: /Restore progress/ })).toBeVisible();
  // Progress is read every second, without reloading, until the job ends.
  await expect(page.getByTestId('restore-status')).toHaveText('Completed', { timeout: 90_000 });
  await expect(page.getByRole('link', { name: 'Open the guild as it was before' })).toBeVisible();
  // The webhook made anew, with its new address for the owner, and a button that copies it.
  const remade = page.getByTestId('new-webhooks').getByRole('row').filter({ hasText: 'Deploys' });
  await expect(remade).toContainText('#general');
  await expect(remade.getByRole('textbox', { name: 'Address of Deploys' })).toHaveValue(
    /\/webhooks\/\d+\/[\w-]+$/,
  );
  await expect(remade.getByRole('button', { name: 'Copy the address of Deploys' })).toBeVisible();
  await capture(page, 'restore-result');

  const snapshot = await api<{
    payload: { roles: never[]; channels: never[]; permission_overrides: never[] };
  }>(page, 'GET', `/api/v1/snapshots/${snapshotId}?include_payload=true`);
  const live = await control<
    { roles: never[]; channels: never[]; permission_overrides?: never[] } & Record<string, unknown>
  >('/guild');
  const liveOverwrites = (
    live.channels as {
      id: string;
      permission_overwrites?: { id: string; type: number; allow: string; deny: string }[];
    }[]
  ).flatMap((channel) =>
    (channel.permission_overwrites ?? []).map((o) => ({
      channel_id: channel.id,
      id: o.id,
      type: o.type === 0 ? 'role' : 'member',
      allow: o.allow,
      deny: o.deny,
    })),
  );
  // Every member who held Moderator in the snapshot holds the recreated one.
  const moderator = (live.roles as { id: string; name: string }[]).find((role) => role.name === 'Moderator')!;
  const holders = (live.members as { roles: string[] }[]).filter((m) => m.roles.includes(moderator.id));
  expect(holders.length).toBeGreaterThan(0);
  expect(shape({ roles: live.roles, channels: live.channels, overwrites: liveOverwrites })).toEqual(
    shape({
      roles: snapshot.payload.roles,
      channels: snapshot.payload.channels,
      overwrites: snapshot.payload.permission_overrides,
    }),
  );

  await page.getByRole('link', { name: 'Preview this snapshot again' }).click();
  await preview();
  await expect(page.getByText('Nothing to restore')).toBeVisible();
});

test('incidents show the raid and offer its snapshot to restore from', async () => {
  // AntiNuke saw alice's deletions and opened an incident with its own snapshot.
  await expect
    .poll(
      async () =>
        (
          await api<{ items: { snapshot_id: string | null }[] }>(
            page,
            'GET',
            `/api/v1/guilds/${guildId}/incidents`,
          )
        ).items.filter((incident) => incident.snapshot_id).length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  await page.goto(`${GUILD_PATH()}/incidents`);
  await expect(page.getByRole('link', { name: 'Restore to when AntiNuke noticed' }).first()).toBeVisible();
  await expect(page.getByText(`user ${state.demo.members.alice}`).first()).toBeVisible();
  await capture(page, 'incidents');
  await page.getByRole('link', { name: 'Restore to when AntiNuke noticed' }).first().click();
  await expect(page).toHaveURL(/\/restore\?snapshot=/);
});

test('"Undo this raid" opens the restore from the guild before the raid with every part chosen', async () => {
  // The incident of the test before: the guild before alice's raid is composed on the click.
  await page.goto(`${GUILD_PATH()}/incidents`);
  await page.getByRole('button', { name: 'Undo this raid' }).first().click();
  await expect(page).toHaveURL(/\/restore\?snapshot=[^&]+&scope=/);
  for (const scope of [
    'Roles',
    'Channels',
    'Permission overwrites',
    'Server settings',
    'Members’ roles',
    'Bans',
    'Custom emojis',
    'Stickers',
    'Server images',
    'AutoMod rules',
    'Webhooks',
    'Welcome screen & onboarding',
  ]) {
    await expect(page.getByRole('checkbox', { name: scope, exact: true })).toBeChecked();
  }

  // Opened on its own, the restore page chooses the four default parts only.
  await page.goto(`${GUILD_PATH()}/restore`);
  await expect(page.getByRole('checkbox', { name: 'Roles', exact: true })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Members’ roles' })).not.toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Bans' })).not.toBeChecked();
});

test('a guild changed between preview and restore is refused, and previewed afresh', async () => {
  await control('/raid');
  await page.goto(`${GUILD_PATH()}/restore?snapshot=${snapshotId}`);
  await preview();
  await control('/rename-channel', { from: 'welcome', to: 'welcome-changed' });
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  const problem = page.getByRole('alert');
  await expect(problem).toBeVisible();
  await expect(problem).not.toContainText('{');
  await page.getByRole('button', { name: 'Preview again' }).click();
  await expect(
    page.getByTestId('restore-preview').getByRole('listitem').filter({ hasText: 'Update #welcome' }),
  ).toBeVisible();
  await capture(page, 'restore-changed');
});

test('a running restore can be cancelled, and says so', async () => {
  await control('/slow-role-creation', { times: 6 });
  try {
    await page.goto(`${GUILD_PATH()}/restore?snapshot=${snapshotId}`);
    await preview();
    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    await expect(page.getByTestId('restore-status')).toHaveText(/Running|Waiting to start/);
    await page.getByRole('button', { name: 'Cancel the restore' }).click();
    await expect(page.getByTestId('restore-status')).toHaveText('Canceled', { timeout: 60_000 });
    await expect(page.getByRole('heading', { name: 'Result' })).toBeVisible();
  } finally {
    await control('/clear-failures', {});
  }
});

test('a member without MANAGE_GUILD sees no restore controls', async ({ browser }) => {
  const member = await browser.newContext();
  const memberPage = await member.newPage();
  try {
    await logIn(memberPage, state.demo.members.carol);
    await expect(memberPage.getByText('You manage no guild')).toBeVisible();
    await memberPage.goto(`${GUILD_PATH()}/restore?snapshot=${snapshotId}`);
    await expect(memberPage.getByRole('alert').first()).toBeVisible();
    await expect(memberPage.getByRole('button', { name: 'Preview the restore' })).toHaveCount(0);
    await expect(memberPage.getByRole('button', { name: 'Restore', exact: true })).toHaveCount(0);
    await capture(memberPage, 'forbidden');
  } finally {
    await member.close();
  }
});

test('an expired session goes to the login and back to where it was', async () => {
  await page.goto(`${GUILD_PATH()}/snapshots`);
  await expect(page.getByRole('heading', { level: 1, name: /Snapshots/ })).toBeVisible();
  // The page's reads settle first (the owner's deleted snapshots are read once the AntiNuke view
  // says who owns the guild): one sent after the session expires would go to the login itself.
  await page.waitForLoadState('networkidle');
  // A token the gateway does not know: what an expired session looks like to it.
  await context.addCookies([{ name: 'sid', value: 'A'.repeat(43), url: stack().url }]);
  await page.getByRole('navigation', { name: 'Guild' }).getByRole('link', { name: 'Incidents' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByRole('link', { name: 'Log in with Discord' }).click();
  await expect(page).toHaveURL(`${GUILD_PATH()}/incidents`);
  await expect(page.getByRole('heading', { level: 1, name: /Incidents/ })).toBeVisible();
});
