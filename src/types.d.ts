// Text imports (bunfig.toml loads .sql and .txt as text; the build embeds them in the binary).
declare module '*.sql' {
  const text: string
  export default text
}
declare module '*.txt' {
  const text: string
  export default text
}
declare module '*/standalone.js' {
  const path: string
  export default path
}
