import { maskPersonalData } from './personal-data.masker';

describe(maskPersonalData.name, () => {
  it('masks e-mail addresses, bearer tokens, JWTs and keys, and keeps the rest of the text', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.Zm9vYmFyYmF6cXV4';
    const text = [
      'Mail alice.martin+ops@example.co.uk about fetch-api',
      `Authorization: Bearer ${jwt}`,
      `token ${jwt}`,
      'OPENAI key sk-proj-abcDEF1234567890xyz and sk-ant-api03-AbCdEf0123456789',
      'AWS AKIAIOSFODNN7EXAMPLE, gh ghp_abcdefghijklmnop1234',
      'config {"apiKey": "abc123secret", password=hunter22!}',
      'hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'blob QWxhZGRpbjpvcGVuIHNlc2FtZQ1234567890abcdefghijKLMNOP',
    ].join('\n');
    const masked = maskPersonalData(text);
    expect(masked).toContain('Mail [email] about fetch-api');
    expect(masked).not.toMatch(/alice|example\.co|eyJ|sk-proj|sk-ant|AKIA|ghp_|abc123secret|hunter22|9f86d0|QWxhZGRp/);
    expect(masked).toContain('[jwt]');
    expect(masked).toContain('[key]');
    expect(masked).toContain('"apiKey": "[secret]"');
    expect(masked).toContain('password=[secret]');
  });

  it('leaves ordinary graph content alone: node keys, code, numbers, short words', () => {
    const text =
      'read_node_detail {"nodeKey":"fetch-api"} → const url = `https://stats.nba.com/players?season=2024`; retry 3 times';
    expect(maskPersonalData(text)).toBe(text);
  });
});
