// Shared settings on PostgreSQL: the first instance to ask stores its value; every instance
// (that one included) reads back the stored one, so they all agree.
import { eq } from 'drizzle-orm'
import type { PgStorage } from '../storage'
import { settings } from './schema'

export async function sharedSetting(storage: PgStorage, name: string, create: () => string): Promise<{ value: string; created: boolean }> {
  const proposed = create()
  const inserted = await storage.db.insert(settings).values({ name, value: proposed }).onConflictDoNothing().returning({ value: settings.value })
  if (inserted.length > 0) return { value: proposed, created: true }
  const [row] = await storage.db.select({ value: settings.value }).from(settings).where(eq(settings.name, name))
  return { value: row!.value, created: false }
}
