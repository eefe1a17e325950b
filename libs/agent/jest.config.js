module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'agent',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
