module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'prep',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
