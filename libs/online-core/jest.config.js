module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online-core',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
