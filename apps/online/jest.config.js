module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
