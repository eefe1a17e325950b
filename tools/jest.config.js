// The tests of the pipeline scripts' plumbing (tools/preset.cjs, tools/stages.sh, the scripts' checks before any stage).
module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'tools',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
