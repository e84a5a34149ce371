// Every table of every feature, for drizzle-kit and for the typed client.
export * from '../features/accounts/schema'
export * from '../features/usage/schema'
export * from '../features/tokens/schema'
export * from '../features/optimizer/schema'
