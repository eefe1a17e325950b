module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'stats',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
