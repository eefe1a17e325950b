module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'train',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
