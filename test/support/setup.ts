import { afterEach, expect } from 'vitest';
import { collectInvalid } from './frames.js';

// "Every stdout byte of every test run is a valid frame": checked after every test.
afterEach(() => {
  expect(collectInvalid()).toEqual([]);
});
