import { ProblemError } from '../../../http/problem'

/** The provider is down, timed out, refused us or answered something we cannot use: 502, and the user may retry. */
export const providerFailed = (provider: string) =>
  new ProblemError(
    502,
    'upstream_unavailable',
    `The payment provider (${provider}) could not be reached or gave an unusable answer; try again in a moment.`,
  )

export const notConfigured = (detail: string) => new ProblemError(503, 'payments_not_configured', detail)
