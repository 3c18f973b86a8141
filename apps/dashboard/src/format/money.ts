/** "₩9,900": an amount in whole won, as the reader's language writes it. */
export function won(amountKrw: number, locale?: string): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: 'KRW',
    maximumFractionDigits: 0,
  }).format(amountKrw);
}
