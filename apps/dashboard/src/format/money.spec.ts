import { won } from './money';

describe(won.name, () => {
  it('writes whole won with the currency sign and grouping', () => {
    expect(won(9_900, 'en-US')).toBe('₩9,900');
    expect(won(29_900, 'en-US')).toBe('₩29,900');
    expect(won(0, 'en-US')).toBe('₩0');
  });
});
