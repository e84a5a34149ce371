// Answers whose JSON text is ready (serialised once, sent many times), as
// `new Response(text, { headers: JSON_TEXT_HEADERS })` in the handler. Elysia passes a Response
// the handler built through untouched when the route set no headers or status, so these skip
// serialisation, the response-schema check and Elysia's header merging; their schemas are still
// declared on the route for the OpenAPI document.
//
// Written inline, not behind a helper: Elysia compiles a handler whose source reads `return f(`
// or `=> f(` as possibly async (a promise per request), and Bun's transpiler folds
// `const r = f(); return r` back into `return f(`. `new Response(` does not match.

/** Copied into each response: a Headers object copies faster than a plain record is parsed. */
export const JSON_TEXT_HEADERS = new Headers({ 'content-type': 'application/json;charset=utf-8' })
