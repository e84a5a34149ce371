// Every table of every feature, for drizzle-kit and for the typed client.
export * from '../features/accounts/schema'
export * from '../features/usage/schema'
export * from '../features/tokens/schema'
export * from '../features/optimizer/schema'
export * from '../features/catalogue/schema'
export * from '../features/skills/schema'
export * from '../features/favorites/schema'
