import * as fs from 'fs';
import * as path from 'path';
import { loadOnlineConfig } from './config';
import { tempDir } from '@rlhf-code/model/testing';

test('documented defaults: ports 8081/8082, RLinf test token and project, Cursor rewards', () => {
  const c = loadOnlineConfig({ env: {} });
  expect(c.completion.port).toBe(8081);
  expect(c.feedback.port).toBe(8082);
  expect(c.feedback.tokens).toEqual(['test-token']);
  expect(c.feedback.projects).toEqual(['test-project']);
  expect(c.training).toMatchObject({ batchSize: 16, clip: 0.2, maxGradNorm: 0.8, reward: { scheme: 'cursor', p: 0.25 } });
  expect(c.model).toBe('models/base');
});

test('precedence: file < environment < flags; unknown or mistyped keys are errors naming the field', () => {
  const file = path.join(tempDir(), 'online.json');
  fs.writeFileSync(file, JSON.stringify({ abFraction: 0.3, feedback: { tokens: ['from-file'], port: 9002 }, training: { batchSize: 4 } }));
  const c = loadOnlineConfig({
    file,
    env: { ONLINE_TOKENS: 'a, b', ONLINE_PROJECTS: 'p1', MODEL_PATH: '/m' },
    overrides: { feedback: { port: 9999 } },
  });
  expect(c.feedback).toMatchObject({ tokens: ['a', 'b'], projects: ['p1'], port: 9999 });
  expect(c.abFraction).toBe(0.3);
  expect(c.training.batchSize).toBe(4);
  expect(c.training.lr).toBe(1e-5); // untouched defaults inside a partly given section
  expect(c.model).toBe('/m');

  fs.writeFileSync(file, JSON.stringify({ training: { batchsize: 4 } }));
  expect(() => loadOnlineConfig({ file, env: {} })).toThrow(/online\.json: training: Unrecognized key.*batchsize/);
  fs.writeFileSync(file, JSON.stringify({ abFraction: 2 }));
  expect(() => loadOnlineConfig({ file, env: {} })).toThrow(/online\.json: abFraction:/);
  fs.writeFileSync(file, '{');
  expect(() => loadOnlineConfig({ file, env: {} })).toThrow(/not valid JSON/);
});

test('feedback.defaultProject: the first allowed project unless set; must be an allowed one unless projects has "*"', () => {
  expect(loadOnlineConfig({ env: {} }).feedback.defaultProject).toBe('test-project');
  expect(loadOnlineConfig({ env: { ONLINE_PROJECTS: 'team-a,team-b' } }).feedback.defaultProject).toBe('team-a');
  expect(loadOnlineConfig({ env: { ONLINE_PROJECTS: '*' } }).feedback.defaultProject).toBe('default');
  expect(loadOnlineConfig({ env: { ONLINE_PROJECTS: '*,team-a' } }).feedback.defaultProject).toBe('team-a');
  expect(loadOnlineConfig({ env: { ONLINE_PROJECTS: 'a,b' }, overrides: { feedback: { defaultProject: 'b' } } }).feedback.defaultProject).toBe('b');
  expect(loadOnlineConfig({ env: { ONLINE_PROJECTS: '*' }, overrides: { feedback: { defaultProject: 'mine' } } }).feedback.defaultProject).toBe('mine');
  expect(() => loadOnlineConfig({ env: { ONLINE_PROJECTS: 'a' }, overrides: { feedback: { defaultProject: 'b' } } })).toThrow(
    /config: feedback\.defaultProject: "b" is not one of feedback\.projects \(a\)/,
  );
});

test('feedback.defaultProject in a file is checked against the projects of the whole config (environment included)', () => {
  const file = path.join(tempDir(), 'online.json');
  fs.writeFileSync(file, JSON.stringify({ feedback: { defaultProject: 'my-team' } }));
  expect(loadOnlineConfig({ file, env: { ONLINE_PROJECTS: 'my-team,other' } }).feedback.defaultProject).toBe('my-team');
  expect(() => loadOnlineConfig({ file, env: {} })).toThrow(/online\.json: feedback\.defaultProject: "my-team" is not one of feedback\.projects \(test-project\)/);
});
