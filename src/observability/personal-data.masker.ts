/**
 * Masks the personal data and secrets a conversation may hold before a trace logs it: e-mail addresses, bearer tokens and JWTs, API keys and other long secrets
 * (sk-… keys, key=… / token=… / password=… assignments, long hexadecimal or base64 runs). The rest of
 * the text is kept, so a trace still shows what the conversation was about.
 */
const MASKS: ReadonlyArray<[RegExp, string]> = [
  // JWTs (three base64url parts, the first two starting with "eyJ": a JSON object).
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '[jwt]'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer [token]'],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[email]'],
  // Provider keys: sk-…, sk-ant-…, pk_live_…, ghp_…, xoxb-…, AKIA… (AWS).
  [/\b(?:sk|pk|rk)[-_](?:[A-Za-z]+[-_])?[A-Za-z0-9_-]{12,}/g, '[key]'],
  [/\b(?:ghp|gho|ghs|github_pat|xox[abpr])[-_][A-Za-z0-9_-]{10,}/g, '[key]'],
  [/\bAKIA[0-9A-Z]{16}\b/g, '[key]'],
  // key=value / "token": "value" assignments of anything named like a secret.
  [
    /\b((?:api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|token|secret|password|passwd|pwd|authorization)["']?\s*[:=]\s*["']?)[^\s"',;&}]{4,}/gi,
    '$1[secret]',
  ],
  // Long opaque runs: 32+ hex digits, or 40+ base64 characters mixing letters and digits.
  [/\b[A-Fa-f0-9]{32,}\b/g, '[key]'],
  [/\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Za-z])[A-Za-z0-9+/_-]{40,}={0,2}/g, '[key]'],
];

export function maskPersonalData(text: string): string {
  let masked = text;
  for (const [pattern, replacement] of MASKS) masked = masked.replace(pattern, replacement);
  return masked;
}
