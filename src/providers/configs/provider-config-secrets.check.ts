import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from '../../observability/logger';
import { sealContext } from './provider-config';
import type { ProviderConfigRepository } from './provider-config.repository';
import { PROVIDER_CONFIG_REPOSITORY } from './provider-config-repository.token';
import { SecretCipher } from './secret.cipher';

const logger = new Logger('provider-configs');

export interface SealedKeysReport {
  /** Configurations holding a sealed key. */
  sealed: number;
  /** Sealed with AI_SECRETS_KEY_PREVIOUS: `npm run ai:reencrypt-secrets` should reseal them. */
  stale: number;
  /** Opened by neither key (or no key configured): unusable until an admin sets the key again. */
  unusable: number;
}

/**
 * Says at start what the stored API keys need: configurations with keys but no AI_SECRETS_KEY (their
 * workspaces' runs fail with provider_not_configured until it is set), keys sealed with the previous
 * key (rotation not finished), keys neither key opens. Never fails the start:
 * the rest of the service works.
 */
@Injectable()
export class ProviderConfigSecretsCheck implements OnApplicationBootstrap {
  constructor(
    @Inject(PROVIDER_CONFIG_REPOSITORY) private readonly configs: ProviderConfigRepository,
    private readonly cipher: SecretCipher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    let report: SealedKeysReport;
    try {
      report = await this.inspect();
    } catch (error) {
      logger.warn('provider_config_keys_not_checked', {
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    if (report.sealed === 0) return;
    if (!this.cipher.canSeal) {
      logger.warn('provider_config_keys_without_secrets_key', {
        configs: report.sealed,
        hint: 'AI_SECRETS_KEY is not set: provider configurations with an API key cannot be used (their workspaces get provider_not_configured) and new ones with a key are refused',
      });
      return;
    }
    if (report.stale > 0) {
      logger.warn('provider_config_keys_stale', {
        configs: report.stale,
        hint: 'sealed with AI_SECRETS_KEY_PREVIOUS: run npm run ai:reencrypt-secrets',
      });
    }
    if (report.unusable > 0) {
      logger.error('provider_config_keys_unusable', {
        configs: report.unusable,
        hint: 'neither AI_SECRETS_KEY nor AI_SECRETS_KEY_PREVIOUS opens them: set the previous key, or have an admin set these keys again',
      });
    }
  }

  async inspect(): Promise<SealedKeysReport> {
    const sealed = await this.configs.listSealed();
    let stale = 0;
    let unusable = 0;
    for (const config of sealed) {
      try {
        this.cipher.open(config.apiKeySecret, sealContext(config.workspace, config.configId));
        if (this.cipher.isStale(config.apiKeySecret)) stale += 1;
      } catch {
        unusable += 1;
      }
    }
    return { sealed: sealed.length, stale, unusable };
  }
}
