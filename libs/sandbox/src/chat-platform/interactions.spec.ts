import { INTERACTION_TOKEN_LIFETIME_MS, InteractionStore } from './interactions';
import { PlatformHttpError } from './platform-error';

/** The platform's rules for an interaction's initial response and its token, without a server. */
describe(InteractionStore.name, () => {
  const t0 = 1_790_000_000_000;
  const APP = '1300000000000000000';
  let store: InteractionStore;

  beforeEach(() => {
    store = new InteractionStore();
  });

  function open(id = '1300000000000000010') {
    return store.open(
      { id, applicationId: APP, guildId: '1', channelId: '2', userId: '3', commandName: 'snapshot create' },
      t0,
    );
  }

  function refusal(act: () => unknown): { status: number; code: number } | undefined {
    try {
      act();
    } catch (error) {
      if (error instanceof PlatformHttpError) return { status: error.status, code: error.code };
      throw error;
    }
    return undefined;
  }

  const deferred = { status: 200, body: { type: 5, data: { flags: 64 } } };

  it('takes a deferred ephemeral answer within 3 s, then edits of the loading message', () => {
    const { id, token } = open();
    const answered = store.respond(id, deferred, t0 + 2_999);
    expect(answered).toMatchObject({
      outcome: 'acknowledged',
      withinDeadline: true,
      initialResponse: { status: 200, type: 5, flags: 64, afterMs: 2_999 },
      originalMessage: { content: '', flags: 64 | 128 },
    });
    const { message } = store.editOriginal(APP, token, { content: 'done' }, t0 + 60_000);
    // The loading flag goes with the first edit; the message stays ephemeral.
    expect(message).toMatchObject({ content: 'done', flags: 64, editedAt: t0 + 60_000 });
    expect(store.get(id)?.edits).toEqual([{ content: 'done', at: t0 + 60_000, afterMs: 60_000 }]);
  });

  it("gives the original response a message id of its own, not the interaction's", () => {
    // On the platform the response is a message with its own snowflake: the callback's answer
    // names it apart from the interaction (`response_message_id`, InteractionCallbackResponse).
    const { id, token } = open();
    store.respond(id, deferred, t0 + 100);
    const { message } = store.original(APP, token, t0 + 200);
    expect(message.id).toMatch(/^\d+$/);
    expect(message.id).not.toBe(id);
  });

  it('fails an interaction answered after the deadline, and refuses its edits as an unknown webhook', () => {
    const { id, token } = open();
    expect(store.respond(id, deferred, t0 + 3_001)).toMatchObject({
      outcome: 'failed',
      withinDeadline: false,
      failure: expect.stringMatching(/no initial response within 3000 ms/),
    });
    expect(refusal(() => store.editOriginal(APP, token, { content: 'late' }, t0 + 4_000))).toEqual({
      status: 404,
      code: 10015,
    });
    expect(store.get(id)?.edits).toEqual([]);
  });

  it('refuses a token past its 15 minutes, another application’s and one it never issued', () => {
    const { id, token } = open();
    store.respond(id, deferred, t0 + 10);
    const edit = { content: 'x' };
    expect(
      refusal(() => store.editOriginal(APP, token, edit, t0 + INTERACTION_TOKEN_LIFETIME_MS)),
    ).toBeUndefined();
    expect(
      refusal(() => store.editOriginal(APP, token, edit, t0 + INTERACTION_TOKEN_LIFETIME_MS + 1)),
    ).toEqual({
      status: 404,
      code: 10015,
    });
    expect(refusal(() => store.editOriginal('1300000000000000099', token, edit, t0 + 20))?.code).toBe(10015);
    expect(refusal(() => store.editOriginal(APP, `${token}x`, edit, t0 + 20))?.code).toBe(10015);
  });

  it('fails answers that are not a valid response to a command', () => {
    const answers = [
      { status: 401, body: { code: 'ErrUnauthenticated' } },
      { status: 200, body: { type: 1 } },
      { status: 200, body: { type: 6 } },
      { status: 200, body: { type: 5, data: { flags: 4 } } },
      { status: 200, body: { type: 4, data: { content: '' } } },
      { status: 200, body: { type: 4, data: { content: 'x'.repeat(2001) } } },
      { status: 200, body: undefined },
    ];
    answers.forEach((answer, index) => {
      const { id } = open(`13000000000000001${index}`);
      expect(store.respond(id, answer, t0 + 5).outcome).toBe('failed');
    });
  });

  it('keeps an immediate message as the original response, and refuses an edit that empties it', () => {
    const { id, token } = open();
    store.respond(id, { status: 200, body: { type: 4, data: { content: 'hi', flags: 64 } } }, t0 + 5);
    expect(store.get(id)?.originalMessage).toMatchObject({ content: 'hi', flags: 64 });
    expect(refusal(() => store.editOriginal(APP, token, { content: null }, t0 + 6))).toEqual({
      status: 400,
      code: 50006,
    });
  });

  it('may hold the endpoint to a shorter deadline, never a longer one', () => {
    expect(() => store.setDeadline(3_001)).toThrow(/between 1 and 3000/);
    store.setDeadline(500);
    const { id } = open();
    expect(store.respond(id, deferred, t0 + 501).outcome).toBe('failed');
  });

  it('resolves a wait for an edit when the edit arrives', async () => {
    const { id, token } = open();
    store.respond(id, deferred, t0 + 5);
    const waiting = store.edited(id, 1, 5_000);
    store.editOriginal(APP, token, { content: 'now' }, t0 + 10);
    await expect(waiting).resolves.toMatchObject({ edits: [{ content: 'now' }] });
    await expect(store.edited(id, 2, 10)).rejects.toThrow(/no edit #2/);
  });
});
