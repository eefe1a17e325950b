module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'data',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
