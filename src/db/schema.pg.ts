// Every feature's PostgreSQL tables, for drizzle-kit (drizzle.config.pg.ts) and `promptlib db copy`.
export * from './postgres/schema'
export * from '../features/accounts/schema.pg'
export * from '../features/usage/schema.pg'
export * from '../features/tokens/schema.pg'
export * from '../features/optimizer/schema.pg'
export * from '../features/catalogue/schema.pg'
export * from '../features/skills/schema.pg'
export * from '../features/favorites/schema.pg'
