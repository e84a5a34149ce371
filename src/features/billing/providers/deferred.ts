// A provider whose SDK is loaded apart from start-up: the `stripe` SDK is ~10 MB of memory, kept
// only by a server that configures it. It loads a moment after start-up (loading blocks the event
// loop for tens of milliseconds, which no request should wait behind), or with an earlier call.
import type { CardProvider } from './stripe'

const LOAD_AFTER_MS = 500

export function deferredCardProvider(load: () => Promise<CardProvider>): CardProvider {
  let loading: Promise<CardProvider> | null = null
  const provider = () => (loading ??= load())
  setTimeout(() => void provider().catch(() => {}), LOAD_AFTER_MS).unref()
  return {
    createCustomer: async (user) => (await provider()).createCustomer(user),
    createCheckout: async (input) => (await provider()).createCheckout(input),
    verify: async (rawBody, signatureHeader) => (await provider()).verify(rawBody, signatureHeader),
    cancelSubscription: async (subscriptionId) => (await provider()).cancelSubscription(subscriptionId),
  }
}
