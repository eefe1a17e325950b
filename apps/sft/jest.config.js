module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'sft',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
