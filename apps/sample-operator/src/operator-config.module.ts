import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { operatorEnvironment, type OperatorEnvironment } from './operator.environment.js';
import { OPERATOR_OPTIONS, resolveOperatorOptions, type OperatorOptions } from './operator.options.js';

/**
 * The operator's configuration: `@nestjs/config` validates the environment
 * ({@link operatorEnvironment}; no `.env` file), and every provider injects the
 * resolved options as `OPERATOR_OPTIONS`, with `overrides` over the environment.
 */
@Global()
@Module({})
export class OperatorConfigModule {
  static forRoot(overrides: OperatorOptions = {}): DynamicModule {
    return {
      module: OperatorConfigModule,
      imports: [
        ConfigModule.forRoot({ ignoreEnvFile: true, skipProcessEnv: true, validationSchema: operatorEnvironment }),
      ],
      providers: [
        {
          provide: OPERATOR_OPTIONS,
          inject: [ConfigService],
          useFactory: (config: ConfigService<OperatorEnvironment, true>) => {
            const keys = Object.keys(operatorEnvironment.shape) as (keyof OperatorEnvironment)[];
            const env = Object.fromEntries(keys.map((key) => [key, config.get(key, { infer: true })]));
            return resolveOperatorOptions(overrides, env as OperatorEnvironment);
          },
        },
      ],
      exports: [OPERATOR_OPTIONS],
    };
  }
}
