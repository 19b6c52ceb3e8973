import { useState } from 'react';

export interface TokenFieldProps {
  token: string;
  refused: boolean;
  onApply: (token: string) => void;
}

/** The JWT the page sends (handshake, every message, REST), kept for this tab only. Shown when the service requires auth. */
export function TokenField({ token, refused, onApply }: TokenFieldProps) {
  const [draft, setDraft] = useState(token);
  return (
    <section className="pg-section">
      <h2>Token</h2>
      <form
        className="pg-row"
        onSubmit={(event) => {
          event.preventDefault();
          onApply(draft.trim());
        }}
      >
        <input
          type="password"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          aria-label="JWT"
          placeholder="paste a JWT"
          autoComplete="off"
        />
        <button type="submit">Use</button>
      </form>
      {!token && <p className="pg-muted">This service requires a token (AUTH_MODE=jwt).</p>}
      {refused && <p className="pg-error">The service refused this token.</p>}
    </section>
  );
}
