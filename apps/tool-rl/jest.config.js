module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'tool-rl',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
