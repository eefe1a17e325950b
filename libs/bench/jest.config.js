module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'bench-lib',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
