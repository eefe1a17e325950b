// Shared jest settings for every project: ts-jest (transpile only; `npm run typecheck` checks types)
// and the tsconfig path aliases mapped to the libs' sources.
const path = require('path');
const { paths } = require('./tsconfig.base.json').compilerOptions;

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(paths)) {
  moduleNameMapper[`^${alias}$`] = path.join(__dirname, target);
}

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.base.json') }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testTimeout: 120000,
  reporters: ['default', path.join(__dirname, 'tools/jest-count-reporter.js')],
};
