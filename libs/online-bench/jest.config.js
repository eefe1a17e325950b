module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'online-bench',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
