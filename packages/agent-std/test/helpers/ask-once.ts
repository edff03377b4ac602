// Asks one question through ask_human with no handler: the terminal path. Used by
// ask-human.test.ts inside a real pseudo-terminal (and without any terminal).
import { createToolbox } from '../../src/index.ts';

const toolbox = createToolbox({
  uses: ['std.ask_human'],
  policy: { askHuman: { timeoutSeconds: 20 } },
});
const reply = await toolbox.callForModel('ask_human', {
  prompt: 'Favourite colour?',
  default: 'blue',
});
process.stdout.write(`\nRESULT=${JSON.stringify(reply.content)}\n`);
