// Every feature's SQLite tables, for drizzle-kit (drizzle.config.ts) and `promptlib db copy`.
export * from '../features/accounts/schema.sqlite'
export * from '../features/usage/schema.sqlite'
export * from '../features/tokens/schema.sqlite'
export * from '../features/oauth/schema.sqlite'
export * from '../features/optimizer/schema.sqlite'
export * from '../features/catalogue/schema'
export * from '../features/skills/schema'
export * from '../features/favorites/schema'
