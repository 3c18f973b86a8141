import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pendingChanges, type WalkthroughResult } from './walkthrough';

const README = path.resolve(__dirname, '../../docs/walkthrough.md');
const SECTION = '## Try it';
const RUN_TIMEOUT_MS = 240_000;

/** One command of the walkthrough (docs/walkthrough.md), as a reader pastes it, and what it printed. */
export interface ReadmeStep {
  /** Line in docs/walkthrough.md where the command starts. */
  line: number;
  command: string;
  output: string;
}

/**
 * The commands of docs/walkthrough.md's "Try it" section: the lines of its fenced `bash` blocks, one command
 * per line (a line ending in `\` goes on on the next), comments and blank lines left out.
 */
export function tryItCommands(readme = readFileSync(README, 'utf8')): Omit<ReadmeStep, 'output'>[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => line.trim() === SECTION);
  if (start === -1) throw new Error(`docs/walkthrough.md has no "${SECTION}" section`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  const commands: Omit<ReadmeStep, 'output'>[] = [];
  let inBlock = false;
  let pending: Omit<ReadmeStep, 'output'> | undefined;
  for (let index = start + 1; index < (end === -1 ? lines.length : end); index++) {
    const line = lines[index];
    if (line.startsWith('```')) {
      inBlock = !inBlock && line.trim() === '```bash';
      continue;
    }
    if (!inBlock) continue;
    if (!pending && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    pending = pending
      ? { ...pending, command: `${pending.command}\n${line}` }
      : { line: index + 1, command: line };
    if (!line.endsWith('\\')) {
      commands.push(pending);
      pending = undefined;
    }
  }
  if (commands.length === 0)
    throw new Error(`docs/walkthrough.md's "${SECTION}" section has no bash commands`);
  return commands;
}

/**
 * Runs the commands in one bash, in order, exactly as printed (stdout and stderr together, as a
 * terminal shows them), and returns each command's output and the variables the commands set.
 */
export async function runTryIt(
  commands: Omit<ReadmeStep, 'output'>[],
): Promise<{ steps: ReadmeStep[]; variables: Record<string, string> }> {
  const names = [
    ...new Set(commands.flatMap(({ command }) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(command)?.[1] ?? [])),
  ];
  const script = [
    'exec 2>&1',
    ...commands.flatMap(({ command }, index) => [`printf '\\n@@step ${index}\\n'`, command]),
    "printf '\\n@@variables\\n'",
    ...names.map((name) => `printf '%s=%s\\n' ${name} "$${name}"`),
  ].join('\n');
  const output = await new Promise<string>((resolve, reject) => {
    const bash = spawn('bash', ['-c', script], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    bash.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const timer = setTimeout(() => {
      bash.kill('SIGKILL');
      reject(new Error(`the walkthrough did not end within ${RUN_TIMEOUT_MS} ms:\n${text.slice(-3000)}`));
    }, RUN_TIMEOUT_MS);
    bash.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
  const [stepsText, variablesText = ''] = output.split('\n@@variables\n');
  const outputs = stepsText.split(/\n@@step \d+\n/).slice(1);
  const steps = commands.map((command, index) => ({ ...command, output: (outputs[index] ?? '').trim() }));
  const variables = Object.fromEntries(
    variablesText
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { steps, variables };
}

/** The JSON answers a step showed, one per line, in order. */
function answers(step: ReadmeStep): Record<string, unknown>[] {
  return step.output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function only(step: ReadmeStep): Record<string, unknown> {
  const shown = answers(step);
  if (shown.length !== 1) throw new Error(`expected one JSON answer, got:\n${step.output}`);
  return shown[0];
}

function last(step: ReadmeStep): Record<string, unknown> {
  const shown = answers(step);
  if (shown.length === 0) throw new Error(`expected a JSON answer, got:\n${step.output}`);
  return shown[shown.length - 1];
}

function check(condition: boolean, what: string, step: ReadmeStep): void {
  if (!condition) throw new Error(`${what}; it showed:\n${step.output.slice(0, 3000)}`);
}

type Variables = Record<string, string>;

/**
 * What the walkthrough says each of its commands shows, keyed by the command. Every command of the
 * section must have one, so a command added to it is checked too.
 */
const EXPECTED: [pattern: RegExp, what: string, expect: (step: ReadmeStep, vars: Variables) => void][] = [
  [/^URL=/, 'sets the URL', (step) => check(step.output === '', 'prints nothing', step)],
  [/^field\(\)/, 'defines field', (step) => check(step.output === '', 'prints nothing', step)],
  [/^JAR=/, 'makes a cookie jar', (step) => check(step.output === '', 'prints nothing', step)],
  [/^consent=/, 'starts the login', (step, vars) => check(/^http/.test(vars.consent), 'a consent URL', step)],
  [
    /^callback=/,
    'consents',
    (step, vars) => check(/\/auth\/callback\?/.test(vars.callback), 'a callback', step),
  ],
  [
    /^TOKEN=/,
    'answers JSON with a token',
    (step, vars) => check(only(step).token === vars.TOKEN && vars.TOKEN.length > 20, 'a session token', step),
  ],
  [/^api\(\)/, 'defines api', (step) => check(step.output === '', 'prints nothing', step)],
  [
    /^DEMO_GUILD=/,
    'describes the sandbox, with the demo guild',
    (step, vars) => {
      const sandbox = only(step) as { chat_platform?: { demo_guild?: { platform_guild_id?: string } } };
      check(/^\d+$/.test(vars.DEMO_GUILD), 'the demo guild platform id kept', step);
      check(sandbox.chat_platform?.demo_guild?.platform_guild_id === vars.DEMO_GUILD, 'the demo guild', step);
    },
  ],
  [
    /^GUILD=/,
    'registers the demo guild',
    (step, vars) => {
      const guild = only(step);
      check(guild.id === vars.GUILD && guild.platform_guild_id === vars.DEMO_GUILD, 'the guild', step);
      check(guild.name === 'Demo Guild', 'the guild named "Demo Guild"', step);
    },
  ],
  [
    /^PREPARED=/,
    'prepares the PRO checkout quietly',
    (step) => check(step.output === '', 'prints nothing', step),
  ],
  [
    /^CHECKOUT=/,
    'starts a checkout',
    (step, vars) =>
      check(
        only(step).checkout_id === vars.CHECKOUT && /^[0-9a-f-]{36}$/.test(vars.CHECKOUT),
        'a checkout id',
        step,
      ),
  ],
  [
    /^CUSTOMER_KEY=/,
    'prepares the PRO checkout',
    (step, vars) =>
      check(
        only(step).customer_key === vars.CUSTOMER_KEY && vars.CUSTOMER_KEY !== '',
        'a customer key',
        step,
      ),
  ],
  [
    /^AUTH_KEY=/,
    'authorizes a card in the widget',
    (step, vars) => check(only(step).auth_key === vars.AUTH_KEY && vars.AUTH_KEY !== '', 'an auth key', step),
  ],
  [
    /^SUBSCRIPTION=/,
    'confirms an active PRO subscription',
    (step, vars) => {
      const subscription = only(step);
      check(
        subscription.id === vars.SUBSCRIPTION && subscription.status === 'active',
        'an active subscription',
        step,
      );
    },
  ],
  [
    /^while .*\/license\b/,
    'waits for the licence to be PRO',
    (step) => check((last(step).plan as { code?: string } | undefined)?.code === 'PRO', 'the plan PRO', step),
  ],
  [
    /^SNAPSHOT=/,
    'takes a snapshot',
    (step, vars) => check(only(step).id === vars.SNAPSHOT && vars.SNAPSHOT !== '', 'the snapshot', step),
  ],
  [
    /\/sandbox\/raid\b/,
    'raids the demo guild',
    (step) =>
      check(((only(step).changed as unknown[] | undefined)?.length ?? 0) > 0, 'what the raid changed', step),
  ],
  [/^SCOPE=/, 'names the scope', (step) => check(step.output === '', 'prints nothing', step)],
  [
    /^DIFF_HASH=/,
    'previews what the raid broke',
    (step, vars) => {
      const diff = only(step);
      check(diff.diff_hash === vars.DIFF_HASH && /^sha256:/.test(vars.DIFF_HASH), 'the diff hash', step);
      check(pendingChanges(diff) > 0, 'changes to restore', step);
    },
  ],
  [
    /^JOB=/,
    'starts the restore',
    // The job's id is its `id`, and `job_id` beside it (docs/behaviour.md §4.2) once the start answer has one.
    (step, vars) => {
      const started = only(step);
      check(vars.JOB !== '' && (started.job_id ?? started.id) === vars.JOB, 'the restore job', step);
    },
  ],
  [
    /^while .*\/restore\//,
    'follows the restore until it has completed',
    (step) => check(last(step).status === 'completed', 'the restore completed', step),
  ],
  [
    /^MEMBER_SCOPE=/,
    'names the members’ scopes',
    (step) => check(step.output === '', 'prints nothing', step),
  ],
  [
    /^MEMBER_HASH=/,
    'previews the roles members get back',
    (step, vars) => {
      const diff = only(step);
      check(diff.diff_hash === vars.MEMBER_HASH, 'the diff hash', step);
      check(((diff.members_to_update as number | undefined) ?? 0) > 0, 'members to give roles back', step);
    },
  ],
  [
    /^MEMBER_JOB=/,
    'starts the restore of members’ roles',
    (step, vars) =>
      check(vars.MEMBER_JOB !== '' && only(step).id === vars.MEMBER_JOB, 'the restore job', step),
  ],
  [
    /^api \S+\/restore\/\$MEMBER_JOB \| field result_summary\.members_updated$/,
    'shows the members given their roles back',
    (step) => {
      const summary = (only(step).result_summary ?? {}) as {
        members_updated?: number;
        member_roles_restored?: number;
      };
      check((summary.members_updated ?? 0) > 0, 'members given roles back', step);
      check((summary.member_roles_restored ?? 0) >= (summary.members_updated ?? 0), 'their roles', step);
    },
  ],
  [
    /^api -X POST \S+\/restore\/preview\b/,
    'previews again: nothing left to restore',
    (step) => check(pendingChanges(only(step)) === 0, 'nothing left to restore', step),
  ],
];

/**
 * docs/walkthrough.md's "Try it", exactly as printed, against the product at its URL: every command
 * shows what the walkthrough says it does. Returns what the walkthrough made, for `expectKept`.
 */
export async function readmeWalkthrough(): Promise<WalkthroughResult> {
  const { steps, variables } = await runTryIt(tryItCommands());
  const unmatched = new Set(EXPECTED);
  for (const step of steps) {
    const expected = EXPECTED.filter(([pattern]) => pattern.test(step.command));
    if (expected.length !== 1) {
      throw new Error(
        `docs/walkthrough.md line ${step.line}: ${expected.length} expectations for "${step.command}"; say what it shows`,
      );
    }
    const [, what, expect] = expected[0];
    try {
      expect(step, variables);
    } catch (error) {
      throw new Error(`docs/walkthrough.md line ${step.line} (${what}): ${(error as Error).message}`);
    }
    unmatched.delete(expected[0]);
  }
  if (unmatched.size > 0) {
    throw new Error(
      `docs/walkthrough.md no longer has: ${[...unmatched].map(([, what]) => what).join(', ')}`,
    );
  }
  return {
    token: variables.TOKEN,
    guildId: variables.GUILD,
    snapshotId: variables.SNAPSHOT,
    jobId: variables.JOB,
    subscriptionId: variables.SUBSCRIPTION,
  };
}
