import { BIDI_CONTROLS, C0_CONTROLS, C1_CONTROLS } from '@genesis/wire'

const UNSAFE = new RegExp(`[${C0_CONTROLS}${C1_CONTROLS}${BIDI_CONTROLS}]`, 'gu')
const UNSAFE_BUT_ESC = new RegExp(`[${C1_CONTROLS}${BIDI_CONTROLS}]`, 'gu')
const asEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** `text` with every such character written as a `\uXXXX` escape: what a log line shows of a value. */
export const escapeUnsafeText = (text: string) => text.replace(UNSAFE, asEscape)

/**
 * The same for text that already had its C0 controls escaped (JSON) and may carry our own colour codes:
 * only C1 controls and bidi controls are escaped.
 */
export const escapeC1AndBidi = (text: string) => text.replace(UNSAFE_BUT_ESC, asEscape)
