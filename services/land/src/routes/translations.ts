import { errorResponses, okJson, type RoutePlugin } from '@genesis/common'
import { LocaleParams, TranslationsEnvelope } from '@genesis/wire/land'
import type { Context } from '../context.js'
import { localeNotFound } from '../errors.js'
import { CachedBody } from '../grid/map-body.js'
import { LOCALES, type Locale, resolveLocale } from '../translations/index.js'
import { SELF_ENCODED, sendCached } from './send.js'

const serialised = Object.fromEntries(
  Object.entries(LOCALES).map(([locale, table]) => [
    locale,
    new CachedBody(Buffer.from(okJson(JSON.stringify(table)))),
  ]),
) as Record<Locale, CachedBody>

export const translationRoutes: RoutePlugin<Context> = async (app) => {
  app.get(
    '/translations/:locale',
    {
      ...SELF_ENCODED,
      schema: {
        summary: 'UI translations for a locale (a flat key → text map)',
        tags: ['translations'],
        params: LocaleParams,
        response: { 200: TranslationsEnvelope, ...errorResponses(400, 404) },
      },
    },
    (request, reply) => {
      const locale = resolveLocale(request.params.locale)
      if (!locale) {
        throw localeNotFound(request.params.locale, Object.keys(LOCALES))
      }
      sendCached(request, reply, serialised[locale])
    },
  )
}
