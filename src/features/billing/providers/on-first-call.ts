// A provider whose SDK loads with its first call: the `stripe` SDK is ~10 MB of an idle server's
// memory (scripts/bench.ts --binary, idle RSS), held from start-up by a server that may take one
// checkout a day. Every method of a provider is asynchronous, so the wait fits inside the call.
import type { CardProvider } from './stripe'

export function cardProviderOnFirstCall(load: () => Promise<CardProvider>): CardProvider {
  let loading: Promise<CardProvider> | null = null
  const provider = () => (loading ??= load())
  return {
    createCustomer: async (user) => (await provider()).createCustomer(user),
    createCheckout: async (input) => (await provider()).createCheckout(input),
    verify: async (rawBody, signatureHeader) => (await provider()).verify(rawBody, signatureHeader),
  }
}
