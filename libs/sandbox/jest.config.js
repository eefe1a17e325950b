module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'sandbox',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
