module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/../model/src/backend/jest-teardown.ts'],
};
