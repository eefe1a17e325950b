module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'generate',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
