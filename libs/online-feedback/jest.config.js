module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online-feedback',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
