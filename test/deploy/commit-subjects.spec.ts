import { judgeSubject, MAX_SUBJECT_LENGTH } from '../../scripts/commit-subjects';

describe('a commit subject that reads like a log', () => {
  it.each([
    'snapshots: an open incident is written once',
    'live sync: the journal keeps a deleted role',
    'docs, scripts: the history reads like a log',
    'scripts/test.sh: one step for commit subjects',
    'apps/recovery/src/sync: batch the journal',
    '42-undo: undo a raid from the journal',
  ])('accepts %j', (subject) => {
    expect(judgeSubject(subject)).toEqual({ ok: true });
  });

  it('accepts exactly 72 characters and refuses 73, saying where the why goes', () => {
    const at = `docs: ${'x'.repeat(MAX_SUBJECT_LENGTH - 6)}`;
    expect([...at]).toHaveLength(72);
    expect(judgeSubject(at)).toEqual({ ok: true });
    const over = judgeSubject(`${at}y`);
    expect(over).toEqual({ ok: false, reason: expect.stringContaining('73 characters') });
    expect(over).toEqual({ ok: false, reason: expect.stringContaining('body') });
  });

  it('counts characters, not UTF-16 units or bytes', () => {
    expect(judgeSubject(`notifier: ${'원'.repeat(62)}`)).toEqual({ ok: true });
  });

  it.each([
    ['Fix the bug', 'area: what changed'],
    ['Docs: a capital area', 'area: what changed'],
    ['docs:no space after the colon', 'area: what changed'],
    ['docs: ', 'white space'],
    [': no area', 'area: what changed'],
    ['fixup! docs: a fix', 'area: what changed'],
    ['docs,scripts: no space after the comma', 'area: what changed'],
    ['', 'empty'],
    [' docs: leading space', 'white space'],
  ])('refuses %j', (subject, why) => {
    expect(judgeSubject(subject)).toEqual({ ok: false, reason: expect.stringContaining(why) });
  });

  describe('a merge commit', () => {
    it.each([
      "Merge branch 'wt-growth'",
      "Merge branch '43-docs' into main",
      "Merge remote-tracking branch 'origin/main'",
      "Merge branch 'main' of github.com:guildkeeper/guildkeeper",
      'Merge pull request #12 from someone/branch',
      "Merge branches 'a' and 'b'",
    ])("refuses git's default %j", (subject) => {
      expect(judgeSubject(subject, true)).toEqual({ ok: false, reason: expect.stringContaining('default') });
    });

    it.each(['Merge 42-undo: undo a raid from the change journal', 'recovery: merge the undo of a raid'])(
      'accepts %j, which says what it brings',
      (subject) => {
        expect(judgeSubject(subject, true)).toEqual({ ok: true });
      },
    );

    it('refuses a merge that names only its branch, and one over the length', () => {
      expect(judgeSubject('Merge 42-undo', true)).toEqual({
        ok: false,
        reason: expect.stringContaining('Merge <branch>'),
      });
      expect(judgeSubject(`Merge 42-undo: ${'x'.repeat(60)}`, true)).toEqual({
        ok: false,
        reason: expect.stringContaining('characters'),
      });
    });

    it('is judged as a merge only when it has two parents: an ordinary commit cannot use the merge form', () => {
      expect(judgeSubject('Merge 42-undo: undo a raid', false)).toEqual({
        ok: false,
        reason: expect.stringContaining('area: what changed'),
      });
    });
  });
});
