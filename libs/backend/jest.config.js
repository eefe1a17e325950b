module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'backend',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/src/jest-teardown.ts'],
};
