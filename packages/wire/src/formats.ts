import { FormatRegistry } from '@sinclair/typebox'

/**
 * TypeBox's Value.Check (used by the importer and the tests) knows no string formats until they are
 * registered; these match what ajv-formats accepts on the HTTP side.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

export function registerFormats(): void {
  if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (value) => UUID.test(value))
  if (!FormatRegistry.Has('date-time')) {
    FormatRegistry.Set('date-time', (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)))
  }
}

registerFormats()
