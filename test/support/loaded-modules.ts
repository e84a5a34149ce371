// Run as a process of its own (test/lazy-loading.test.ts): starts the app on an SQLite data
// directory with no provider configured, answers a few requests, and prints the modules loaded.
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { openStorage } from '../../src/db'
import { createMemoryLogger } from '../../src/log'

const config = loadConfig(process.env)
const { storage } = await openStorage(config)
const app = createApp({ config, storage, log: createMemoryLogger('warn'), jwtSecret: 'loaded-modules-secret-loaded-modules-secret' })
for (const path of ['/api/health', '/api/categories', '/api/config', '/api/user/me']) await app.handle(new Request(`http://localhost${path}`))
console.log(JSON.stringify(Object.keys(require.cache)))
await storage.close()
