import unhomoglyph from 'unhomoglyph'

/** Characters that render as nothing (zero-width spaces and joiners, soft hyphens, variation selectors…). */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu
/** Any run of white space, whatever its width (no-break, ideographic, em…), reads as one space. */
const SPACES = /\p{White_Space}+/gu

/**
 * Case folding: upper-casing first folds what lower-casing alone keeps apart ("ß" and "SS", "ſ" and "s",
 * the final sigma).
 */
const fold = (text: string) => text.toUpperCase().toLowerCase()

/**
 * The form in which two collection names are the same name: what uniqueness compares. Two names that a
 * reader cannot tell apart get one key:
 *
 * 1. NFKC, so compatibility variants (full-width letters, ligatures, mathematical letters, no-break
 *    spaces) become their plain letters;
 * 2. default-ignorable code points removed, white space collapsed to one space and trimmed;
 * 3. case folded;
 * 4. the confusable skeleton of Unicode's UTS #39 (`unhomoglyph`, from the Unicode consortium's
 *    confusables.txt): a Cyrillic "е" becomes a Latin "e", "0" an "O", "rn" and "m" both "rn";
 * 5. folded again (the skeleton maps to either case), in NFC.
 *
 * The key is never shown: it only decides whether a name is taken.
 */
export function nameKey(name: string): string {
  const plain = name.normalize('NFKC').replace(INVISIBLE, '').replace(SPACES, ' ').trim()
  const skeleton = unhomoglyph(fold(plain).normalize('NFD')).normalize('NFD')
  return fold(skeleton).normalize('NFC')
}
