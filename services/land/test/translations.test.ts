import { describe, expect, it } from 'vitest'
import { LOCALES, resolveLocale } from '../src/translations/index.js'

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
const english = LOCALES.en

describe('translations', () => {
  it('has at least 60 keys', () => {
    expect(Object.keys(english).length).toBeGreaterThanOrEqual(60)
  })

  it.each(Object.keys(LOCALES))(
    '%s has exactly the English keys, none empty, with the same placeholders',
    (locale) => {
      const table = LOCALES[locale as keyof typeof LOCALES] as Record<string, string>
      expect(Object.keys(table).sort()).toEqual(Object.keys(english).sort())
      for (const [key, text] of Object.entries(table)) {
        expect(text.trim(), `${locale} ${key}`).not.toBe('')
        expect(placeholders(text), `${locale} ${key}`).toEqual(
          placeholders((english as Record<string, string>)[key]!),
        )
      }
    },
  )

  it('translates rather than copies: most texts differ from English', () => {
    for (const locale of ['es', 'fr', 'ko', 'zh'] as const) {
      const table = LOCALES[locale] as Record<string, string>
      const same = Object.keys(english).filter(
        (key) => table[key] === (english as Record<string, string>)[key],
      )
      // Product names (LAND, MANA) and a few cognates may stay as they are.
      expect(same.length, `${locale}: ${same.join(', ')}`).toBeLessThan(10)
    }
  })

  it('maps a region or script suffix to its language', () => {
    expect(resolveLocale('en')).toBe('en')
    expect(resolveLocale('EN-us')).toBe('en')
    expect(resolveLocale('zh_CN')).toBe('zh')
    expect(resolveLocale('ko-KR')).toBe('ko')
    expect(resolveLocale('pt-BR')).toBeUndefined()
    expect(resolveLocale('constructor')).toBeUndefined()
  })
})
