import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm test`'s check that the history reads like a log: every commit made after the one that
 * introduced this file has a subject of at most 72 characters in the form `area: what changed`,
 * and a merge commit says what it merges instead of git's default "Merge branch 'x'".
 * The why of a change belongs in the commit's body, not its subject.
 *
 * Run: `node -r @swc-node/register scripts/commit-subjects.ts` (exit 1 names each bad commit).
 */

export const MAX_SUBJECT_LENGTH = 72;

/**
 * The line whose first appearance marks the commit that introduced the check: the check finds
 * that commit itself with `git log -S`, so commits before it (written under older habits) are
 * never judged. Keep this line as it is.
 */
export const INTRODUCED_MARKER = 'commit-subject-rule: judged from the commit adding this line';

export type Verdict = { ok: true } | { ok: false; reason: string };

/** One area: lower-case words or paths (`live sync`, `scripts/test.sh`, `42-undo`). */
const AREA = '[a-z0-9][a-z0-9._/-]*(?: [a-z0-9][a-z0-9._/-]*)*';
/** `area: what changed`, several areas separated by commas (`docs, scripts: ...`). */
const AREA_FORM = new RegExp(`^${AREA}(?:, ${AREA})*: \\S`);
/** What git writes when nobody says what a merge brings. */
const GIT_DEFAULT_MERGE =
  /^Merge (?:(?:remote-tracking )?branch(?:es)? |tag |commit |pull request #\d+ from )\S+(?:(?:, | and )\S+)*(?: of \S+)?(?: into \S+)?$/;
/** A merge that names what it merges and says what that brings: `Merge 42-undo: undo a raid`. */
const DESCRIBED_MERGE = /^Merge \S.*: \S/;

/** The rule for one commit subject (the first line of its message). */
export function judgeSubject(subject: string, merge = false): Verdict {
  if (subject.trim() === '') return { ok: false, reason: 'the subject is empty' };
  if (subject !== subject.trim()) {
    return { ok: false, reason: 'the subject starts or ends with white space' };
  }
  const length = [...subject].length;
  if (length > MAX_SUBJECT_LENGTH) {
    return {
      ok: false,
      reason: `the subject has ${length} characters (at most ${MAX_SUBJECT_LENGTH}; the why goes in the body)`,
    };
  }
  if (merge) {
    if (GIT_DEFAULT_MERGE.test(subject)) {
      return {
        ok: false,
        reason: "git's default merge message: say what the merge brings (`Merge <branch>: <what>`)",
      };
    }
    if (DESCRIBED_MERGE.test(subject) || AREA_FORM.test(subject)) return { ok: true };
    return { ok: false, reason: 'a merge subject is `Merge <branch>: <what it brings>`' };
  }
  if (!AREA_FORM.test(subject)) {
    return {
      ok: false,
      reason: 'the subject is not `area: what changed` (area: lower-case words or paths, comma-separated)',
    };
  }
  return { ok: true };
}

const ROOT = path.resolve(__dirname, '..');

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

interface Commit {
  hash: string;
  merge: boolean;
  subject: string;
}

/** The commits of `revisions`, each with its subject and whether it has more than one parent. */
function commits(...revisions: string[]): Commit[] {
  const out = git('log', '--format=%H%x00%P%x00%s%x1e', ...revisions);
  const boundaries = shallowBoundaries();
  return out
    .split('\x1e')
    .map((record) => record.trim())
    .filter((record) => record !== '')
    .map((record) => {
      const [hash, parents, subject] = record.split('\x00');
      // A shallow clone shows its boundary commits without parents; the commit object keeps them.
      const parentCount = boundaries.has(hash)
        ? git('cat-file', 'commit', hash)
            .split('\n')
            .filter((line) => line.startsWith('parent ')).length
        : parents.split(' ').filter(Boolean).length;
      return { hash, merge: parentCount > 1, subject };
    });
}

/** The commits a shallow clone was cut at: git shows each as adding every file it holds. */
function shallowBoundaries(): Set<string> {
  const file = path.resolve(ROOT, git('rev-parse', '--git-path', 'shallow'));
  if (!existsSync(file)) return new Set();
  return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
}

/**
 * The oldest commit whose change to this file added the marker line; none when the history is
 * cut before it (a shallow clone's boundary commit seems to add it, but is no proof).
 */
function introducingCommit(): string | undefined {
  const file = path.relative(ROOT, __filename);
  const found = git('log', '--reverse', '--format=%H', `-S${INTRODUCED_MARKER}`, '--', file);
  const oldest = found.split('\n').find((line) => line !== '');
  return oldest && !shallowBoundaries().has(oldest) ? oldest : undefined;
}

function main(): number {
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  try {
    git('rev-parse', '--git-dir');
  } catch {
    say(
      'commit subjects: NOT CHECKED, this is no git repository (the check reads the history of a git clone)',
    );
    return 0;
  }
  const shallow = git('rev-parse', '--is-shallow-repository') === 'true';
  const since = introducingCommit();
  let toCheck: Commit[];
  if (since) {
    toCheck = commits(`${since}..HEAD`);
    say(
      `commit subjects: ${toCheck.length} commit(s) after ${since.slice(0, 12)}, which introduced this check`,
    );
  } else if (shallow) {
    toCheck = commits('HEAD');
    say(
      'commit subjects: this is a shallow clone and the commit that introduced this check is not in it; ' +
        `checking the ${toCheck.length} commit(s) present instead. For the exact range run \`git fetch --unshallow\`.`,
    );
  } else {
    say(
      `commit subjects: no commit adds the marker line of ${path.relative(ROOT, __filename)} to the history ` +
        '(was it changed, or is the check not committed yet?); commit it, or restore the INTRODUCED_MARKER line.',
    );
    return 1;
  }
  if (toCheck.length === 0) {
    say('commit subjects: nothing to check yet');
    return 0;
  }
  let bad = 0;
  for (const commit of toCheck) {
    const verdict = judgeSubject(commit.subject, commit.merge);
    if (!verdict.ok) {
      bad++;
      say(`  ${commit.hash.slice(0, 12)} "${commit.subject}": ${verdict.reason}`);
    }
  }
  if (bad > 0) {
    say(
      `commit subjects: ${bad} subject(s) to reword (git rebase -i, "reword"): at most ${MAX_SUBJECT_LENGTH} ` +
        'characters, `area: what changed`, merges that say what they merge',
    );
    return 1;
  }
  say(`commit subjects: all ${toCheck.length} read like a log`);
  return 0;
}

if (require.main === module) {
  process.exitCode = main();
}
