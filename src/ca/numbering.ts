/**
 * Manifest and CRL numbers (domain, pure). One counter per CA key serves both, as in Krill (krill-reference.md §3):
 * every issuance takes the previous number plus one (RFC 9286 §4.2.1; RFC 9829 §2 for the CRL number), so a number is
 * never used twice with different content. Both fields hold at most 20 octets, so 2^159-1 is the last number; a key
 * that reached it issues nothing more under that key. RFC 9981 §1: a subordinate CA recovers with a key rollover
 * (RFC 6489), whose new certificate relying parties treat as a new CA, and whose manifest has another file name, so
 * they reset the number they keep (§2, §3); §7 lets the CA software alert the operator, which the CA issue does.
 */

/** The largest manifest or CRL number: 20 octets including the sign bit (RFC 9286 §4.2.1, RFC 5280 §5.2.3). */
export const MAX_OBJECT_NUMBER = (1n << 159n) - 1n

/**
 * The number of the next manifest and CRL of a key whose last one had `previous` (a decimal string; undefined for a
 * new key, which starts at 1). Undefined when `previous` is already the largest number: the key needs a roll.
 */
export function nextObjectNumber(previous: string | undefined): bigint | undefined {
  const prev = previous === undefined ? 0n : BigInt(previous)
  return prev >= MAX_OBJECT_NUMBER ? undefined : prev + 1n
}

/** Why nothing more is signed under a key whose numbers are used up (the CA's issue text). */
export const NUMBERS_EXHAUSTED = 'RFC 9981 §1, §7: the manifest number reached 2^159-1; nothing more is signed under this key until a key roll (svcc keyroll init)'
