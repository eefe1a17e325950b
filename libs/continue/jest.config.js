module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'continue',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
