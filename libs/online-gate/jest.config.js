module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online-gate',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
