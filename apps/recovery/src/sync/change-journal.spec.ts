import { ChangeJournal, JOURNAL_BATCH } from './change-journal';
import type { JournalChange } from './change-journal-entry';
import type {
  ChangeJournalRepository,
  JournalAuditEntryToStore,
  JournalChangeToStore,
} from './change-journal.repository';

const GUILD = '0190a0a0-0000-7000-8000-000000000001';
const created = (id: string): JournalChange => ({ object_type: 'channel', object_id: id, change: 'create' });

function repository(failures = 0) {
  const writes: { changes: JournalChangeToStore[]; entries: JournalAuditEntryToStore[] }[] = [];
  let left = failures;
  const repo = {
    insert: jest.fn((changes: JournalChangeToStore[], entries: JournalAuditEntryToStore[]) => {
      if (left-- > 0) return Promise.reject(new Error('database down'));
      writes.push({ changes, entries });
      return Promise.resolve();
    }),
  };
  return { repo: repo as unknown as ChangeJournalRepository, writes, insert: repo.insert };
}

describe(ChangeJournal.name, () => {
  afterEach(() => jest.useRealTimers());

  it('writes what it was handed in one batch, shortly after, without the caller waiting', async () => {
    jest.useFakeTimers();
    const { repo, writes } = repository();
    const sut = new ChangeJournal(repo);
    sut.change(GUILD, created('1'));
    sut.auditEntry(GUILD, {
      entry_id: '9',
      actor_id: '5',
      action_type: 12,
      target_id: '1',
      changes: [],
      at: new Date(),
    });
    expect(writes).toEqual([]);

    await jest.advanceTimersByTimeAsync(250);

    expect(writes).toHaveLength(1);
    expect(writes[0].changes.map((row) => row.change)).toEqual([created('1')]);
    expect(writes[0].entries.map((row) => row.entry.entry_id)).toEqual(['9']);
  });

  it('writes a full batch at once, in batches of JOURNAL_BATCH', async () => {
    const { repo, writes } = repository();
    const sut = new ChangeJournal(repo);
    for (let i = 0; i < JOURNAL_BATCH; i++) sut.change(GUILD, created(String(i)));
    await sut.flush();
    expect(writes.map((write) => write.changes.length)).toEqual([JOURNAL_BATCH]);
  });

  it('keeps what a failed write held and writes it, in order, with what came since', async () => {
    const { repo, writes, insert } = repository(1);
    const sut = new ChangeJournal(repo);
    sut.change(GUILD, created('1'));
    await sut.flush();
    expect(insert).toHaveBeenCalledTimes(1);
    sut.change(GUILD, created('2'));
    await sut.flush();
    expect(writes.map((write) => write.changes.map((row) => row.change.object_id))).toEqual([['1', '2']]);
  });
});
