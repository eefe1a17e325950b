module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online-page',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
