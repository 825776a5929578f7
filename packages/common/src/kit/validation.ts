import { Ajv, type Options } from 'ajv'
import addFormatsImport from 'ajv-formats'
import type { FastifyInstance } from 'fastify'

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default

// verbose: errors carry the offending value, so messages can quote it.
const shared: Options = {
  removeAdditional: false,
  useDefaults: true,
  allErrors: true,
  strict: false,
  verbose: true,
}

/**
 * Bodies are validated as sent (a string is never coerced into an array), while path and query
 * values, which are always strings, are coerced to the schema's types.
 */
export function installValidation(app: FastifyInstance) {
  const body = addFormats(new Ajv({ ...shared, coerceTypes: false }))
  const params = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }))
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : params).compile(schema))
}
