module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'trainer-core',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
