module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'engine',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
