// GET /api/config: what a client needs to draw its screens before anyone signs in: the sign-in
// providers and payment providers this server has configured, and the tier table. Read from the
// configuration once; no storage.
export { siteConfigRoutes } from './routes'
export { siteConfig } from './service'
