/** Hex text ⇄ bytes. Lowercase on output unless asked; strict on input. Used across the library. */
import { ParseError } from './errors.js'

const HEX = '0123456789abcdef'

/** Bytes to lowercase hex (use `.toUpperCase()` for key-id file names, as Krill does). */
export function toHex(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]
    out += HEX[b >> 4] + HEX[b & 15]
  }
  return out
}

/** Hex (either case, even length, no separators) to bytes; anything else is a ParseError. */
export function fromHex(text: string): Uint8Array {
  if (text.length % 2 !== 0) throw new ParseError('', `hex text has an odd length (${text.length})`)
  if (!/^[0-9a-fA-F]*$/.test(text)) throw new ParseError('', 'hex text contains a character that is not 0-9, a-f or A-F')
  return new Uint8Array(Buffer.from(text, 'hex'))
}
