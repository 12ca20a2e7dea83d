// The bundled executable's entry: run main, and turn anything that escapes into one JSON line and exit 70.
import { main } from './main.js';

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.stderr.write(`${JSON.stringify({ type: 'error', error_code: 'internal', message, exit_code: 70 })}\n`);
  process.exit(70);
});
