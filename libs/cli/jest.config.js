module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'cli',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
