import { sealContext } from './provider-config';
import type { ProviderConfigRepository } from './provider-config.repository';
import { SecretCipher } from './secret.cipher';

export interface ResealReport {
  /** Sealed again with AI_SECRETS_KEY (they were sealed with AI_SECRETS_KEY_PREVIOUS). */
  resealed: number;
  /** Already sealed with AI_SECRETS_KEY. */
  current: number;
  /** Opened by neither key: an admin must set these keys again. */
  unusable: Array<{ workspace: string; configId: string; name: string }>;
  /** Changed by an admin while this ran (the new key is sealed with the current key already). */
  changedMeanwhile: number;
}

/**
 * The second half of a key rotation (`npm run ai:reencrypt-secrets`): every stored API key sealed
 * with AI_SECRETS_KEY_PREVIOUS is opened and sealed again with AI_SECRETS_KEY, each replaced only if
 * nobody changed it meanwhile. Safe to run again, and while the service runs.
 */
export async function resealProviderConfigKeys(
  configs: ProviderConfigRepository,
  cipher: SecretCipher,
): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, unusable: [], changedMeanwhile: 0 };
  for (const config of await configs.listSealed()) {
    const context = sealContext(config.workspace, config.configId);
    let plain: string;
    try {
      plain = cipher.open(config.apiKeySecret, context);
    } catch {
      report.unusable.push({ workspace: config.workspace, configId: config.configId, name: config.name });
      continue;
    }
    if (!cipher.isStale(config.apiKeySecret)) {
      report.current += 1;
      continue;
    }
    if (
      await configs.replaceSealed(config.workspace, config.configId, config.apiKeySecret, cipher.seal(plain, context))
    )
      report.resealed += 1;
    else report.changedMeanwhile += 1;
  }
  return report;
}
