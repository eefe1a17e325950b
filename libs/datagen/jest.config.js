module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'datagen',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
};
