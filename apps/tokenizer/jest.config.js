module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'tokenizer-cli',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
