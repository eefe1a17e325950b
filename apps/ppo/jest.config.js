module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ppo',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
