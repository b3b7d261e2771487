// Values planted in the test world and in test requests. None may ever appear in a log line
// (scripts/run-tests.ts checks the whole suite's captured logs for them).
export const PLANTED = {
  names: ['QXPLANTLASTA', 'QXPLANTFIRSTA', 'QXPLANTLASTB', 'QXPLANTFIRSTB', 'QXKIDLAST', 'QXKIDFIRST'],
  emails: ['qx.planted.mail@example.test', 'qx.other.mail@example.test'],
  phones: ['+1 555 0199 4242', '+44 20 7946 0999'],
  documents: ['QXDOC998877', 'QXDOC112233'],
  secrets: ['qx-secret-planted-alpha-001', 'qx-secret-planted-beta-0002', 'qx-admin-token-planted-0003'],
  /** A payment card number (Luhn-valid, no issuer's test number): pay.do's tests pay with it. */
  cards: ['4938172605149372'],
} as const;
