module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online-learning',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/../backend/src/jest-teardown.ts'],
};
