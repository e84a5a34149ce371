// Every feature's SQLite tables, for drizzle-kit (drizzle.config.ts) and `promptlib db copy`.
export * from '../features/accounts/schema.sqlite'
export * from '../features/usage/schema.sqlite'
export * from '../features/tokens/schema.sqlite'
export * from '../features/optimizer/schema'
export * from '../features/catalogue/schema.sqlite'
export * from '../features/skills/schema.sqlite'
export * from '../features/favorites/schema.sqlite'
