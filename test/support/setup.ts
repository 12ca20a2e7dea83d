import { afterAll, afterEach, expect } from 'vitest';
import { removeTempDirs } from './daemon.js';
import { collectInvalid } from './frames.js';

// "Every stdout byte of every test run is a valid frame": checked after every test.
afterEach(() => {
  expect(collectInvalid()).toEqual([]);
});

// Folders of tempDir() live as long as their test file: module-level fixtures are shared by its tests.
afterAll(() => {
  removeTempDirs();
});
