module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'rm',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
