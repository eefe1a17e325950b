module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'eval',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
