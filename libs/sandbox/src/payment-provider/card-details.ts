/** The provider's card company codes by the short names it reports in `cardCompany`. */
const CARD_COMPANY_CODES: Record<string, string> = {
  국민: '11',
  카카오뱅크: '15',
  하나: '21',
  토스뱅크: '24',
  산업: '30',
  비씨: '31',
  우리: '33',
  수협: '34',
  전북: '35',
  씨티: '36',
  우체국: '37',
  새마을: '38',
  저축: '39',
  신한: '41',
  제주: '42',
  광주: '46',
  삼성: '51',
  현대: '61',
  신협: '62',
  롯데: '71',
  농협: '91',
  케이뱅크: '3A',
  기업비씨: '3K',
};

export interface CardCodes {
  issuerCode: string;
  acquirerCode: string;
}

/** Throws on an unknown company, which is a typo in a test rather than a card the provider knows. */
export function cardCodes(cardCompany: string): CardCodes {
  const code = CARD_COMPANY_CODES[cardCompany];
  if (!code) {
    throw new Error(
      `unknown card company '${cardCompany}'; known: ${Object.keys(CARD_COMPANY_CODES).join(', ')}`,
    );
  }
  // Acquired by the issuer itself, the usual case for a credit card.
  return { issuerCode: code, acquirerCode: code };
}

export function assertCardNumber(cardNumber: string): void {
  if (!/^\d{16}$/.test(cardNumber)) throw new Error(`card number must be 16 digits, got '${cardNumber}'`);
}

/** As the provider shows it: `43301234****123*` (first 8 digits, 4 hidden, 3 shown, the last hidden). */
export function maskCardNumber(cardNumber: string): string {
  return `${cardNumber.slice(0, 8)}****${cardNumber.slice(12, 15)}*`;
}
