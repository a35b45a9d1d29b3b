// `node dist/index.js` starts the stdio server, as the specification's host configurations expect.
import './cli/main.js';
