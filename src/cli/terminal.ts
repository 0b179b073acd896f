/**
 * Text svcc writes to a terminal (issue 22 defect 11): a server's error message, a remote parent's or repository's
 * error text, a CA's issue, a document read from a file: none of it may drive the terminal. Every C0 control character
 * except newline and tab, DEL, and every C1 control character (U+0080–U+009F: 8-bit CSI, OSC, …) is written as a
 * visible escape (`\x1b`, `\x9b`), so an escape sequence shows as text instead of recolouring, retitling, moving the
 * cursor over earlier lines or writing to the clipboard. program.ts passes all of svcc's output through it. Pure.
 */

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** The text with control characters (all but \n and \t) shown as `\xHH`; a CR LF line end is a newline. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * JSON text for a terminal: JSON.stringify already escapes C0 controls inside strings, not DEL or C1; these become
 * `\u007f`…`\u009f`, so the text is still the same JSON value and holds no control character at all.
 */
export function jsonSafe(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
