import { en, type Translations } from './en.js'
import { es } from './es.js'
import { fr } from './fr.js'
import { ko } from './ko.js'
import { zh } from './zh.js'

export type { TranslationKey, Translations } from './en.js'

export const LOCALES = { en, es, fr, ko, zh } as const satisfies Record<string, Translations>
export type Locale = keyof typeof LOCALES

/** `en`, `EN`, `en-US`, `zh_CN` → the language; undefined when it is not one we translate. */
export function resolveLocale(tag: string): Locale | undefined {
  const language = tag.split(/[-_]/)[0]?.toLowerCase()
  return language !== undefined && Object.hasOwn(LOCALES, language) ? (language as Locale) : undefined
}
