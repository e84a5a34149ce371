// @elysiajs/openapi (through @sinclair/typemap) replaces TypeBox's global string formats
// (email, uuid, url, date, …) with checks that build a new Zod schema on every call: a format
// check then costs tens of microseconds and dominates request and response validation.
// Importing this module after the plugin puts Elysia's own precompiled checks back.
import { FormatRegistry } from '@sinclair/typebox'
import { fullFormats } from 'elysia/type-system/format'

for (const [name, check] of Object.entries(fullFormats)) {
  if (check instanceof RegExp) FormatRegistry.Set(name, (value) => check.test(value))
  else if (typeof check === 'function') FormatRegistry.Set(name, check as (value: string) => boolean)
}

// Timestamps in this API are always ISO 8601 UTC as Date.toISOString() writes them; one anchored
// regex is enough and far cheaper than the general date parser (it runs on every response).
const ISO_DATE_TIME = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d(\.\d{1,9})?(Z|[+-][0-2]\d:[0-5]\d)$/
FormatRegistry.Set('date-time', (value) => ISO_DATE_TIME.test(value))
