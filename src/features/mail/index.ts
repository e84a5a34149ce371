// Mail: the transactional outbox other features queue e-mails in, and the worker that sends them.
import type { Config } from '../../config'
import type { Storage } from '../../db/storage'
import type { Logger } from '../../log'
import { createMailService, type MailService } from './service'
import { sqliteMailStore } from './store.sqlite'
import { logTransport, type MailTransport, smtpTransport } from './transport'

export type { MailMessage, MailService } from './service'
export type { MailTransport, OutgoingMail } from './transport'

// Required, not imported: an SQLite server never loads PostgreSQL's adapter (docs/architecture.md).
const pgStore = (): typeof import('./store.pg') => require('./store.pg')

export function createMail(deps: {
  storage: Storage
  config: Pick<Config, 'smtp' | 'mailOutbox'>
  log: Logger
  transport?: MailTransport
}): MailService {
  const { storage, config, log } = deps
  const transport =
    deps.transport ?? (config.smtp ? smtpTransport(config.smtp.url, config.smtp.from, config.mailOutbox.sendTimeoutMs) : logTransport(log))
  const store = storage.engine === 'sqlite' ? sqliteMailStore(storage) : pgStore().pgMailStore(storage)
  return createMailService({ store, transport, log, settings: config.mailOutbox })
}
