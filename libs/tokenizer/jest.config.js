module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'tokenizer',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
