module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'rl',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
