// Times both databases store. SQLite keeps epoch milliseconds; PostgreSQL a timestamptz, sent as
// the ISO string JavaScript writes, and PostgreSQL reads no year 0 (0000-…) and no year past 9999
// (+010000-…) there. A time from outside (an imported record, a provider's event) is refused
// outside years 1 to 9999 (UTC), on either engine.

/** 0001-01-01T00:00:00.000Z (Date.UTC would read year 1 as 1901). */
export const FIRST_STORABLE_MS = -62_135_596_800_000
/** 9999-12-31T23:59:59.999Z */
export const LAST_STORABLE_MS = 253_402_300_799_999

export const isStorableTime = (ms: number) => ms >= FIRST_STORABLE_MS && ms <= LAST_STORABLE_MS
