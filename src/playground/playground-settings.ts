/** What the playground page needs to know before its first request (GET /playground/config.json). Pure type: the page compiles it. */
export interface PlaygroundSettings {
  /** `jwt`: the page asks for a token. */
  auth: 'jwt' | 'none';
}
