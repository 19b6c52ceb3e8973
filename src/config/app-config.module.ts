import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { APP_CONFIG } from './app-config.token';
import { loadAppConfig } from './load-app-config';

/**
 * Provides the validated AppConfig under APP_CONFIG to every module.
 * main.ts passes process.env; tests pass their own environment object.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig | Record<string, string | undefined>): DynamicModule {
    const resolved = isAppConfig(config) ? config : loadAppConfig(config);
    return {
      module: AppConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: resolved }],
      exports: [APP_CONFIG],
    };
  }
}

function isAppConfig(value: object): value is AppConfig {
  return 'server' in value && 'rawEnv' in value;
}
