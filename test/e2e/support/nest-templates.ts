// The files `nest new` writes that a test runs: the application templates of @nestjs/schematics 11.1.0
// (`nest new` of @nestjs/cli 11: CommonJS, Jest with ts-jest) and 12.0.17 (`nest new`, type `esm`: ESM, Vitest),
// with their default options, as generated. The linters, formatters and the CLI itself are left out of the
// dependencies: nothing here runs them.

/** The files of a generated application: its path in the app, and its text. */
export type AppFiles = Record<string, string>;

const CONTROLLER = (extension: string) => `import { Controller, Get } from '@nestjs/common';
import { AppService } from './app.service${extension}';

@Controller()
export class AppController {
  constructor(private readonly appService: AppService) {}

  @Get()
  getHello(): string {
    return this.appService.getHello();
  }
}
`;

const SERVICE = `import { Injectable } from '@nestjs/common';

@Injectable()
export class AppService {
  getHello(): string {
    return 'Hello World!';
  }
}
`;

const CONTROLLER_SPEC = (extension: string) => `import { Test, TestingModule } from '@nestjs/testing';
import { AppController } from './app.controller${extension}';
import { AppService } from './app.service${extension}';

describe('AppController', () => {
  let appController: AppController;

  beforeEach(async () => {
    const app: TestingModule = await Test.createTestingModule({
      controllers: [AppController],
      providers: [AppService],
    }).compile();

    appController = app.get<AppController>(AppController);
  });

  describe('root', () => {
    it('should return "Hello World!"', () => {
      expect(appController.getHello()).toBe('Hello World!');
    });
  });
});
`;

const COMPILER_OPTIONS = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  esModuleInterop: true,
  isolatedModules: true,
  declaration: true,
  removeComments: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  allowSyntheticDefaultImports: true,
  target: 'ES2023',
  sourceMap: true,
  outDir: './dist',
  incremental: true,
  skipLibCheck: true,
};

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** `nest new` of @nestjs/cli 11: CommonJS (no `type`), Jest through ts-jest, configured in package.json. */
export function nest11Template(): { packageJson: Record<string, unknown>; files: AppFiles } {
  return {
    packageJson: {
      private: true,
      license: 'UNLICENSED',
      scripts: { test: 'jest', 'test:e2e': 'jest --config ./test/jest-e2e.json' },
      dependencies: {
        '@nestjs/common': '^11.0.1',
        '@nestjs/core': '^11.0.1',
        '@nestjs/platform-express': '^11.0.1',
        'reflect-metadata': '^0.2.2',
        rxjs: '^7.8.1',
      },
      devDependencies: {
        '@nestjs/testing': '^11.0.1',
        '@types/express': '^5.0.0',
        '@types/jest': '^30.0.0',
        '@types/node': '^24.0.0',
        '@types/supertest': '^7.0.0',
        jest: '^30.0.0',
        supertest: '^7.0.0',
        'ts-jest': '^29.2.5',
        typescript: '^5.7.3',
      },
      jest: {
        moduleFileExtensions: ['js', 'json', 'ts'],
        rootDir: 'src',
        testRegex: '.*\\.spec\\.ts$',
        transform: { '^.+\\.(t|j)s$': 'ts-jest' },
        collectCoverageFrom: ['**/*.(t|j)s'],
        coverageDirectory: '../coverage',
        testEnvironment: 'node',
      },
    },
    files: {
      'tsconfig.json': json({
        compilerOptions: {
          ...COMPILER_OPTIONS,
          baseUrl: './',
          strictNullChecks: true,
          forceConsistentCasingInFileNames: true,
          noImplicitAny: false,
          strictBindCallApply: false,
          noFallthroughCasesInSwitch: false,
        },
      }),
      'tsconfig.build.json': json({
        extends: './tsconfig.json',
        exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
      }),
      'src/app.controller.ts': CONTROLLER(''),
      'src/app.service.ts': SERVICE,
      'src/app.controller.spec.ts': CONTROLLER_SPEC(''),
      'test/jest-e2e.json': json({
        moduleFileExtensions: ['js', 'json', 'ts'],
        rootDir: '.',
        testEnvironment: 'node',
        testRegex: '.e2e-spec.ts$',
        transform: { '^.+\\.(t|j)s$': 'ts-jest' },
      }),
    },
  };
}

/**
 * `nest new` of @nestjs/cli 12 (type `esm`, the default): ESM, Vitest with `globals: true`. `versions` gives the
 * versions the workspace runs, so that the app tests the same stack.
 */
export function nest12Template(versions: (name: string) => string): {
  packageJson: Record<string, unknown>;
  files: AppFiles;
} {
  return {
    packageJson: {
      private: true,
      license: 'UNLICENSED',
      type: 'module',
      scripts: { test: 'vitest run', 'test:e2e': 'vitest run --config ./vitest.config.e2e.ts' },
      dependencies: {
        '@nestjs/common': versions('@nestjs/common'),
        '@nestjs/core': versions('@nestjs/core'),
        '@nestjs/platform-express': versions('@nestjs/platform-express'),
        'reflect-metadata': versions('reflect-metadata'),
        rxjs: versions('rxjs'),
      },
      devDependencies: {
        '@nestjs/testing': versions('@nestjs/testing'),
        '@types/express': '^5.0.0',
        '@types/node': versions('@types/node'),
        '@types/supertest': '^7.0.0',
        supertest: '^7.0.0',
        typescript: versions('typescript'),
        vite: versions('vite'),
        vitest: versions('vitest'),
      },
    },
    files: {
      'tsconfig.json': json({
        compilerOptions: {
          ...COMPILER_OPTIONS,
          rootDir: '.',
          strict: true,
          strictPropertyInitialization: false,
          types: ['vitest/globals', 'node'],
        },
      }),
      'tsconfig.build.json': json({
        extends: './tsconfig.json',
        compilerOptions: { rootDir: './src' },
        include: ['src'],
        exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
      }),
      'vitest.config.ts': `import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Resolves the path aliases declared in tsconfig.json, including the ones
  // added by \`nest g library\`. Requires Vite 8, which ships this option.
  resolve: { tsconfigPaths: true },
  test: {
    globals: true,
    root: './',
    include: ['**/*.spec.ts'],
  },
});
`,
      'vitest.config.e2e.ts': `import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    globals: true,
    root: './',
    include: ['**/*.e2e-spec.ts'],
  },
});
`,
      'src/app.controller.ts': CONTROLLER('.js'),
      'src/app.service.ts': SERVICE,
      'src/app.controller.spec.ts': CONTROLLER_SPEC('.js'),
    },
  };
}
