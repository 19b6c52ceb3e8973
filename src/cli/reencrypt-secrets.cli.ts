import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadAppConfig } from '../config/load-app-config';
import { configureLogging } from '../observability/logger';
import { createNestLogger } from '../observability/nest-logger';
import { PersistenceModule } from '../persistence/persistence.module';
import { resealProviderConfigKeys } from '../providers/configs/provider-config-keys.resealer';
import type { ProviderConfigRepository } from '../providers/configs/provider-config.repository';
import { PROVIDER_CONFIG_REPOSITORY } from '../providers/configs/provider-config-repository.token';
import { SecretCipher } from '../providers/configs/secret.cipher';
import { CliIo, runCli } from './cli-context';

/**
 * `npm run ai:reencrypt-secrets`: after AI_SECRETS_KEY was replaced (the old one moved to
 * AI_SECRETS_KEY_PREVIOUS), seals every stored provider API key with the new key, in the configured
 * store. Prints counts, never a key. Exit code 0
 * when every key is sealed with AI_SECRETS_KEY, 2 when some could be opened by neither key, 1 on error.
 */
export async function reencryptSecrets(
  _argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  const config = loadAppConfig(env);
  if (!config.secrets.key) {
    io.stderr.write(
      'AI_SECRETS_KEY is not set: set the new key (and the old one as AI_SECRETS_KEY_PREVIOUS), then run this again.\n',
    );
    return 1;
  }
  configureLogging({ level: 'warn' });
  const app = await NestFactory.createApplicationContext(PersistenceModule.forRoot(config), {
    logger: createNestLogger(),
    abortOnError: false,
  });
  try {
    const configs = app.get<ProviderConfigRepository>(PROVIDER_CONFIG_REPOSITORY);
    const report = await resealProviderConfigKeys(
      configs,
      new SecretCipher(config.secrets.key, config.secrets.previousKey),
    );
    io.stdout.write(
      `Provider API keys: ${report.resealed} re-encrypted with AI_SECRETS_KEY, ${report.current} already current, ` +
        `${report.changedMeanwhile} changed meanwhile, ${report.unusable.length} unreadable.\n`,
    );
    for (const config of report.unusable) {
      io.stdout.write(
        `  unreadable: workspace "${config.workspace}", configuration "${config.name}" (${config.configId}): an admin must set its apiKey again\n`,
      );
    }
    if (report.unusable.length === 0 && report.resealed + report.changedMeanwhile > 0) {
      io.stdout.write('Every key is sealed with AI_SECRETS_KEY: AI_SECRETS_KEY_PREVIOUS can be removed.\n');
    }
    return report.unusable.length > 0 ? 2 : 0;
  } finally {
    await app.close();
  }
}

if (require.main === module) runCli(reencryptSecrets);
