// Every example under examples/ runs offline as a user runs it, and the README's code blocks are
// those files (see scripts/readme-examples.ts); what each example prints is in
// test/example-output.ts.
import { readmeExampleTests } from '../../../scripts/readme-examples.ts';
import { EXAMPLE_OUTPUT } from './example-output.ts';

readmeExampleTests(new URL('..', import.meta.url), EXAMPLE_OUTPUT);
