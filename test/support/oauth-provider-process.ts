// The loopback OAuth provider of test/support/oauth-provider.ts as a process of its own (the
// benchmark runs it on another CPU than the server):
//   bun test/support/oauth-provider-process.ts oidc|github PORT
// POST /__user {sub, email, …} makes that user the one who consents at /authorize next.
import { MockProvider, type ProviderStyle, type ProviderUser } from './oauth-provider'

const [style, port] = process.argv.slice(2)
if ((style !== 'oidc' && style !== 'github') || !port) {
  console.error('usage: oauth-provider-process.ts oidc|github PORT')
  process.exit(2)
}
const provider = await MockProvider.start(style as ProviderStyle, Number(port))
provider.server.service.addRoute('POST', '/__user', (req, res) => {
  provider.defaultUser = provider.add(req.body as unknown as ProviderUser)
  res.writeHead(204)
  res.end()
})
provider.server.service.addRoute('GET', '/__ready', (_req, res) => {
  res.writeHead(200)
  res.end('ok')
})
process.on('SIGTERM', () => void provider.stop().then(() => process.exit(0)))
