/**
 * Characters that change what a reader sees instead of showing as themselves: C0 and C1 controls (a
 * terminal reads ESC and CSI, U+009B, as commands) and the bidi embeddings, overrides and isolates, which
 * reorder the text around them so that a name reads as another. Written as the body of a regular
 * expression's character class (patterns are compiled with the `u` flag).
 */
export const C0_CONTROLS = '\\u0000-\\u001f'
/** DEL and the C1 controls. */
export const C1_CONTROLS = '\\u007f-\\u009f'
/** LRE, RLE, PDF, LRO, RLO and the isolates LRI, RLI, FSI, PDI. */
export const BIDI_CONTROLS = '\\u202a-\\u202e\\u2066-\\u2069'
